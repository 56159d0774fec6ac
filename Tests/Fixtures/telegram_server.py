#!/usr/bin/env python3
"""A loopback stand-in for the Telegram Bot API, for hookctl's answer-from-the-push tests.

Follows core.telegram.org/bots/api for what hookctl uses: `POST /bot<TOKEN>/<method>` with a JSON body,
answers `{"ok": true, "result": ...}` or `{"ok": false, "error_code", "description"}`:
- sendMessage: gives the message a `message_id` (1, 2, ...) and answers it (`chat`, `text`, `reply_markup`).
- getUpdates {offset, timeout, allowed_updates}: the updates with `update_id >= offset` (older ones are
  confirmed and forgotten, as Telegram does), waiting up to `timeout` seconds (long polling) for one.
- answerCallbackQuery {callback_query_id, text}, editMessageText {chat_id, message_id, text}: ok.
An unknown token answers 404 as Telegram does. Test control, not Telegram's: `POST /_press` with
`{"chat_id", "message_id", "data"}` adds a `callback_query` update (a user pressing a button).
Every request is appended as one JSON line to --log (path, method, body). Prints its port.
"""
import argparse, json, os, threading, time
from loopback import QuietHandler, loopback_server

parser = argparse.ArgumentParser()
parser.add_argument("--log", required=True)
parser.add_argument("--token", required=True)
parser.add_argument("--lifetime", type=float, default=600)
args = parser.parse_args()

lock = threading.Condition()
state = {"message_id": 0, "update_id": 100, "query": 0}
updates = []


def log(entry):
    with lock:
        with open(args.log, "a") as f:
            f.write(json.dumps(entry) + "\n")


class Handler(QuietHandler):
    def answer(self, status, obj):
        self.send_json(obj, status)

    def do_POST(self):
        raw = self.read_body()
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self.answer(400, {"ok": False, "error_code": 400, "description": "Bad Request: invalid JSON"})
        if self.path == "/_press":
            with lock:
                state["update_id"] += 1
                state["query"] += 1
                updates.append({"update_id": state["update_id"], "callback_query": {
                    "id": "cq-%d" % state["query"], "from": {"id": 7, "is_bot": False, "first_name": "Me"},
                    "message": {"message_id": body.get("message_id", 1), "chat": {"id": body["chat_id"], "type": "private"}},
                    "chat_instance": "1", "data": body["data"]}})
                lock.notify_all()
            return self.answer(200, {"ok": True})
        parts = self.path.strip("/").split("/")
        method = parts[1] if len(parts) == 2 else ""
        log({"path": self.path.replace(args.token, "TOKEN"), "method": method, "body": body})
        if len(parts) != 2 or parts[0] != "bot" + args.token:
            return self.answer(404, {"ok": False, "error_code": 404, "description": "Not Found"})
        if method == "sendMessage":
            with lock:
                state["message_id"] += 1
                message = {"message_id": state["message_id"], "date": int(time.time()),
                           "chat": {"id": body.get("chat_id"), "type": "private"}, "text": body.get("text", "")}
            if "reply_markup" in body:
                message["reply_markup"] = body["reply_markup"]
            return self.answer(200, {"ok": True, "result": message})
        if method == "getUpdates":
            offset = int(body.get("offset") or 0)
            timeout = min(float(body.get("timeout") or 0), 50)
            with lock:
                # Confirmed updates are forgotten.
                updates[:] = [u for u in updates if u["update_id"] >= offset]
                lock.wait_for(lambda: len(updates) > 0, timeout=timeout)
                result = list(updates)
            return self.answer(200, {"ok": True, "result": result})
        if method in ("answerCallbackQuery", "editMessageText"):
            return self.answer(200, {"ok": True, "result": True})
        return self.answer(404, {"ok": False, "error_code": 404, "description": "Not Found: method not found"})


server = loopback_server(Handler)
threading.Timer(args.lifetime, lambda: os._exit(0)).start()
print(server.server_address[1], flush=True)
server.serve_forever()
