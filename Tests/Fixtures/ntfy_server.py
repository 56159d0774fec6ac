#!/usr/bin/env python3
"""A loopback stand-in for an ntfy server, for hookctl's answer-from-the-push tests and benchmarks.

Follows ntfy's documented publish and subscribe API (docs.ntfy.sh publish.md, subscribe/api.md):
- publish: `POST /` with a JSON body `{"topic", "message", "title", "actions", ...}`, or `POST|PUT /<topic>`
  with the message as the body; answers 200 with the message as JSON (`id`, `time`, `event: "message"`,
  `topic`, `message`, ...).
- subscribe: `GET /<topic>/json` streams one JSON object per line (chunked): an `open` event, then the
  cached messages after `since=` (a message id, a unix time, `all`; none: only new ones), then new ones
  as they are published, with `keepalive` events every --keepalive seconds. `poll=1` answers the cached
  messages after `since=` and closes.
Message ids are 12 random letters and digits, as ntfy's. Every request is appended as one JSON line to
--log (method, path, query, body). Listens on 127.0.0.1 on a port the OS picks and prints it.
--delay SECONDS holds every subscribe answer that long before its first byte (a slow server); the
delay can be changed while running by writing LOG.delay. While the file LOG.close exists, a subscribe is
answered 200 and closed at once, with no line (a server that drops every stream). --tls CERT KEY serves
HTTPS, and plain HTTP too on a second port (printed on the next line) to the same topics: the test posts
there as the phone would. Stops after --lifetime seconds.
"""
import argparse, json, os, random, string, sys, threading, time
from loopback import QuietHandler, loopback_server
from urllib.parse import urlsplit, parse_qs

parser = argparse.ArgumentParser()
parser.add_argument("--log", required=True)
parser.add_argument("--keepalive", type=float, default=45)
parser.add_argument("--delay", type=float, default=0)
parser.add_argument("--lifetime", type=float, default=600)
parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS with this certificate and key")
args = parser.parse_args()

lock = threading.Condition()
messages = []  # every message published, in order


def new_id():
    return "".join(random.choice(string.ascii_letters + string.digits) for _ in range(12))


def log(entry):
    with lock:
        with open(args.log, "a") as f:
            f.write(json.dumps(entry) + "\n")


def delay():
    try:
        with open(args.log + ".delay") as f:
            return float(f.read().strip() or 0)
    except (FileNotFoundError, ValueError):
        return args.delay


def publish(topic, fields):
    message = {"id": new_id(), "time": int(time.time()), "event": "message", "topic": topic}
    message.update({k: v for k, v in fields.items() if k != "topic"})
    with lock:
        messages.append(message)
        lock.notify_all()
    return message


def after(topic, since):
    """The cached messages of `topic` after `since` (an id, a unix time, `all`), in order."""
    mine = [m for m in messages if m["topic"] == topic]
    if since is None:
        return []
    if since == "all":
        return mine
    if since.isdigit():
        return [m for m in mine if m["time"] >= int(since)]
    for index, m in enumerate(mine):
        if m["id"] == since:
            return mine[index + 1:]
    return mine


NDJSON = "application/x-ndjson; charset=utf-8"


class Handler(QuietHandler):
    def answer(self, status, obj):
        self.send_json(obj, status, newline=True)

    def do_POST(self):
        self.publish_request()

    def do_PUT(self):
        self.publish_request()

    def publish_request(self):
        url = urlsplit(self.path)
        raw = self.read_body()
        if url.path.startswith("/_flood/"):
            # Test control, not ntfy's: publishes N junk messages to the topic at once (a flooded topic).
            topic = url.path.split("/")[2]
            count = int(parse_qs(url.query).get("n", ["10000"])[0])
            kinds = [lambda i: "junk %d" % i,
                     lambda i: json.dumps({"answer": "a1.%d.garbage" % i}),
                     lambda i: json.dumps({"answer": "a1.AAAAAAAA.AAAAAAAAAAAA.1.zzzzzz.AAAAAAAAAAA.AAAAAAAAAAAAAAAA"}),
                     lambda i: "x" * 40000,
                     lambda i: json.dumps({"nested": [[[[i]]]]})]
            for i in range(count):
                publish(topic, {"message": kinds[i % len(kinds)](i)})
            log({"method": "POST", "path": url.path, "body": "flood %d" % count})
            return self.answer(200, {"published": count})
        text = raw.decode("utf-8", "replace")
        log({"method": self.command, "path": url.path, "body": text})
        if url.path == "/":
            try:
                fields = json.loads(text)
            except ValueError:
                return self.answer(400, {"code": 40001, "error": "invalid request: body must be JSON"})
            topic = fields.get("topic", "")
        else:
            topic = url.path.strip("/").split("/")[0]
            fields = {"message": text}
            if self.headers.get("Title"):
                fields["title"] = self.headers["Title"]
        if not topic:
            return self.answer(400, {"code": 40002, "error": "topic missing"})
        self.answer(200, publish(topic, fields))

    def do_GET(self):
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        log({"method": "GET", "path": url.path, "query": url.query})
        parts = url.path.strip("/").split("/")
        if len(parts) != 2 or parts[1] != "json":
            return self.answer(404, {"code": 40401, "error": "page not found"})
        topic = parts[0]
        since = query.get("since", [None])[0]
        wait = delay()
        if wait > 0:
            time.sleep(wait)
        with lock:
            backlog = after(topic, since)
            seen = len(messages)
        if os.path.exists(args.log + ".close"):
            return self.send_body(b"", NDJSON, headers=[("Connection", "close")])
        if query.get("poll", ["0"])[0] in ("1", "true", "yes"):
            return self.send_body("".join(json.dumps(m) + "\n" for m in backlog).encode(), NDJSON)
        self.send_head(200, [("Content-Type", NDJSON), ("Transfer-Encoding", "chunked")])

        def send(obj):
            data = (json.dumps(obj) + "\n").encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        try:
            send({"id": new_id(), "time": int(time.time()), "event": "open", "topic": topic})
            for m in backlog:
                send(m)
            while True:
                with lock:
                    lock.wait_for(lambda: len(messages) > seen, timeout=args.keepalive)
                    fresh = [m for m in messages[seen:] if m["topic"] == topic]
                    seen = len(messages)
                if fresh:
                    for m in fresh:
                        send(m)
                else:
                    send({"id": new_id(), "time": int(time.time()), "event": "keepalive", "topic": topic})
        except OSError:  # the subscriber went away (a broken pipe, a reset, a TLS connection torn down)
            return


server = loopback_server(Handler)
plain = None
if args.tls:
    plain = loopback_server(Handler)
    threading.Thread(target=plain.serve_forever, daemon=True).start()
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*args.tls)
    # The handshake happens in the connection's own thread, not in accept: a slow client holds up no other.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
threading.Timer(args.lifetime, lambda: os._exit(0)).start()
print(server.server_address[1], flush=True)
if plain:
    print(plain.server_address[1], flush=True)
server.serve_forever()
