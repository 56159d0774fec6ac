#!/usr/bin/env python3
"""A scripted stand-in for the model APIs the real agents call, on loopback, for the real-agent tests.

Serves Anthropic's `POST /v1/messages` (Server-Sent Events, for Claude Code), OpenAI's
`POST /v1/chat/completions` (streamed chunks, for aider) and OpenAI's Responses API `POST /v1/responses`
(Server-Sent Events, for Codex). What the "model" answers depends on the last
user message (the test types it into the real agent):
  - `run bash <cmd>`  -> a Bash tool call running <cmd> (Claude; Codex: its shell tool, as the request
                         names it), which the agent asks permission for
  - `ask db`          -> an AskUserQuestion call (Postgres / SQLite) (Claude)
  - `plan it`         -> an ExitPlanMode call with a short plan (Claude)
  - `mention <name>`  -> aider: a reply naming <name>.py, which aider then asks to add to the chat (a
                         question after the model's answer, so aider runs its notifications command)
  - `edit <file>`     -> a reply naming <file>
  - `say <text>`      -> the text <text>
  - anything else     -> `Done.`
After a tool result the model says `Finished: <first line of the result>`. Every request is appended
to --log as one JSON line (path, model, last user text). Prints `PORT <n>` on stdout once listening.
Stops by itself after --lifetime seconds (default 600) so no test leaves it behind.
"""
import argparse, json, os, sys, threading, time
from loopback import QuietHandler, loopback_server

parser = argparse.ArgumentParser()
parser.add_argument("--log", required=True)
parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
parser.add_argument("--lifetime", type=float, default=600)
args = parser.parse_args()
lock = threading.Lock()
answers = 0


def blocks_of(content):
    """(typed text, tool result text or None) of one user message."""
    if isinstance(content, str):
        return content, None
    typed, result = [], None
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            typed.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            result = inner if isinstance(inner, str) else "\n".join(
                b.get("text", "") for b in inner or [] if isinstance(b, dict))
    return "\n".join(typed), result


def last_user(messages):
    for message in reversed(messages or []):
        if message.get("role") == "user":
            return blocks_of(message.get("content"))
    return "", None


def typed_line(text):
    """The user's own words: the last line that is not a system reminder."""
    inside = False
    words = []
    for line in (text or "").split("\n"):
        stripped = line.strip()
        if stripped.startswith("<system-reminder"):
            inside = True
        if not inside and stripped and not stripped.startswith("<"):
            words.append(stripped)
        if stripped.endswith("</system-reminder>"):
            inside = False
    return words[-1] if words else ""


def decide(typed, result):
    line = typed_line(typed)
    # After a refused tool call the agent sends the refusal and the user's new words in one message.
    if result is not None and not line:
        return ("text", "Finished: " + ((result or "ok").strip().split("\n")[0][:80] or "ok"))
    lower = line.lower()
    if lower.startswith("run bash "):
        return ("tool", "Bash", {"command": line[9:], "description": "Run the command the test asked for"})
    if lower.startswith("ask db"):
        return ("tool", "AskUserQuestion", {"questions": [{"question": "Which database?", "header": "DB",
                 "multiSelect": False, "options": [{"label": "Postgres", "description": "a server"},
                                                   {"label": "SQLite", "description": "a file"}]}]})
    if lower.startswith("plan it"):
        return ("tool", "ExitPlanMode", {"plan": "1. Add a file\n2. Test it"})
    if lower.startswith("say "):
        return ("text", line[4:])
    if lower.startswith("mention "):
        return ("text", "Please look at " + line[8:].strip() + ".py to continue.")
    if lower.startswith("edit "):
        return ("text", "I would change " + line[5:].strip() + " to do that.")
    return ("text", "Done.")


class Handler(QuietHandler):
    def body(self):
        try:
            return json.loads(self.read_body() or b"{}")
        except ValueError:
            return {}

    def record(self, request, typed, result):
        with lock, open(args.log, "a", encoding="utf-8") as log:
            log.write(json.dumps({"path": self.path, "model": request.get("model"), "text": typed_line(typed),
                                  "tool_result": result, "time": time.time()}) + "\n")

    def do_GET(self):
        self.send_json({"data": [], "object": "list"})

    def do_POST(self):
        request = self.body()
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens"):
            return self.send_json({"input_tokens": 10})
        if path.endswith("/responses"):
            return self.openai_responses(request)
        typed, result = last_user(request.get("messages"))
        self.record(request, typed, result)
        if args.delay:
            time.sleep(args.delay)
        answer = decide(typed, result)
        if path.endswith("/chat/completions"):
            return self.openai(request, answer)
        return self.anthropic(request, answer)

    def stream(self):
        self.send_head(200, [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("Connection", "close")])

    def anthropic(self, request, answer):
        if not request.get("stream"):
            content = [{"type": "text", "text": answer[1]}] if answer[0] == "text" else \
                [{"type": "tool_use", "id": "toolu_%d" % int(time.time() * 1000), "name": answer[1], "input": answer[2]}]
            return self.send_json({"id": "msg_1", "type": "message", "role": "assistant", "model": request.get("model"),
                                   "content": content, "stop_reason": "end_turn" if answer[0] == "text" else "tool_use",
                                   "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}})
        self.stream()

        def event(name, data):
            self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode())
            self.wfile.flush()
        event("message_start", {"type": "message_start", "message": {
            "id": "msg_%d" % int(time.time() * 1000), "type": "message", "role": "assistant",
            "model": request.get("model") or "claude", "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
        if answer[0] == "text":
            event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
            event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": answer[1]}})
            stop = "end_turn"
        else:
            event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": "toolu_%d" % int(time.time() * 1000), "name": answer[1], "input": {}}})
            event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                           "delta": {"type": "input_json_delta", "partial_json": json.dumps(answer[2])}})
            stop = "tool_use"
        event("content_block_stop", {"type": "content_block_stop", "index": 0})
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 5}})
        event("message_stop", {"type": "message_stop"})

    def openai(self, request, answer):
        text = answer[1] if answer[0] == "text" else "Done."
        if not request.get("stream"):
            return self.send_json({"id": "c1", "object": "chat.completion", "created": int(time.time()),
                                   "model": request.get("model"), "choices": [{"index": 0, "finish_reason": "stop",
                                   "message": {"role": "assistant", "content": text}}],
                                   "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
        self.stream()

        def chunk(delta, finish=None):
            data = {"id": "c1", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": request.get("model") or "gpt-4o",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            self.wfile.write(("data: %s\n\n" % json.dumps(data)).encode())
            self.wfile.flush()
        chunk({"role": "assistant", "content": ""})
        chunk({"content": text})
        chunk({}, "stop")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def responses_last_user(items):
    """(typed text, tool result text or None) of a Responses API request's input: the items after the
    last assistant message or call, the newest user message's text and any function call output."""
    typed, result = "", None
    for item in items or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                typed = content
            else:
                typed = "\n".join(part.get("text", "") for part in content or []
                                  if isinstance(part, dict) and part.get("type") in ("input_text", "text"))
            result = None
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            if isinstance(output, dict):
                output = output.get("content") or json.dumps(output)
            elif isinstance(output, list):
                output = "\n".join(part.get("text", "") for part in output if isinstance(part, dict))
            result = output if isinstance(output, str) else json.dumps(output)
            typed = ""
    return typed, result


def responses_tool(request, answer):
    """The function call (name, arguments) Codex's request offers for `answer`: its shell tool under the
    name and argument shape the request lists (`exec_command` {cmd}, `shell_command` {command},
    `shell` {command: argv}), or request_user_input."""
    names = [tool.get("name") for tool in request.get("tools") or [] if isinstance(tool, dict)]
    if answer[1] == "AskUserQuestion":
        question = answer[2]["questions"][0]
        return "request_user_input", {"questions": [{"id": "db", "header": question["header"], "question": question["question"],
                                                     "options": [{"label": option["label"], "description": option["description"]}
                                                                 for option in question["options"]]}]}
    command = answer[2].get("command", "true")
    # Asking to run outside the sandbox makes Codex ask the user (approval policy on-request).
    extra = {"justification": answer[2].get("description"), "sandbox_permissions": "require_escalated"}
    if "exec_command" in names:
        return "exec_command", dict(extra, cmd=command)
    if "shell_command" in names:
        return "shell_command", dict(extra, command=command)
    return "shell", dict(extra, command=["bash", "-lc", command])


def openai_responses(self, request):
    typed, result = responses_last_user(request.get("input"))
    with lock, open(args.log, "a", encoding="utf-8") as log:
        log.write(json.dumps({"path": self.path, "model": request.get("model"), "text": typed_line(typed),
                              "tool_result": result, "tools": [tool.get("name") for tool in request.get("tools") or []
                                                               if isinstance(tool, dict)],
                              "time": time.time()}) + "\n")
    if args.delay:
        time.sleep(args.delay)
    answer = decide(typed, result)
    schema = ((request.get("text") or {}).get("format") or {}).get("schema")
    if isinstance(schema, dict):
        # A structured side request (Codex asks for a thread title this way): an object with each
        # required string field.
        answer = ("text", json.dumps({field: "Test" for field in schema.get("required") or []}))
    # Unique per answer: the turn and its thread-title request can arrive within one millisecond.
    with lock:
        global answers
        answers += 1
        stamp = "%d_%d" % (int(time.time() * 1000), answers)
    self.stream()

    def event(data):
        self.wfile.write(("event: %s\ndata: %s\n\n" % (data["type"], json.dumps(data))).encode())
        self.wfile.flush()
    event({"type": "response.created", "response": {"id": "resp_%s" % stamp}})
    if answer[0] == "text":
        item = {"type": "message", "role": "assistant", "id": "msg_%s" % stamp,
                "content": [{"type": "output_text", "text": answer[1], "annotations": []}]}
        event({"type": "response.output_item.added", "output_index": 0,
               "item": dict(item, content=[])})
        event({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": item["id"],
               "delta": answer[1]})
    else:
        name, arguments = responses_tool(request, answer)
        item = {"type": "function_call", "id": "fc_%s" % stamp, "call_id": "call_%s" % stamp, "name": name,
                "arguments": json.dumps(arguments)}
    event({"type": "response.output_item.done", "output_index": 0, "item": item})
    event({"type": "response.completed", "response": {"id": "resp_%s" % stamp, "usage": {
        "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}}})


Handler.openai_responses = openai_responses

server = loopback_server(Handler)
print("PORT %d" % server.server_address[1], flush=True)
threading.Timer(args.lifetime, lambda: os._exit(0)).start()
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
