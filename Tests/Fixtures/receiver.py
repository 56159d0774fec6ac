#!/usr/bin/env python3
"""Loopback HTTP receiver for hookctl's end-to-end tests and benchmarks.

Listens on 127.0.0.1 on a port the OS picks, prints the port on stdout, records each request as a
JSON line (method, path, headers with lower-case names, body) and answers from a script of
responses: comma-separated `STATUS[:DELAY_SECONDS][:RETRY_AFTER]`, the last one repeating.
With --rate it limits requests like the phone's relay (token bucket, 429 without Retry-After).
LOG.peak keeps the peak number of simultaneous connections, as the server sees them: a connection the
client has closed counts until the server notices, so it can exceed what the client held at once.
LOG.outstanding keeps the peak number of requests received and not yet answered, counted down before
the answer's first byte is written: a client cannot have seen that answer, so this never exceeds the
number of requests the client had in flight.
`hang` never answers; `STATUS:gate` answers once the file LOG.gate exists (a test opens it when it is
ready, so the wait never depends on how long the test's own steps take). The script can be replaced
while running by writing LOG.responses.
Stops by itself after --lifetime seconds (default 600) so no test leaves it behind.
"""
import argparse, json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--log", required=True)
parser.add_argument("--responses", default="204")
parser.add_argument("--body", default="", help="response body for 2xx answers")
parser.add_argument("--error-body", default="", help="response body for non-2xx answers")
parser.add_argument("--lifetime", type=float, default=600)
parser.add_argument("--rate", type=float, default=0,
                    help="like the phone's relay: requests a second allowed (token bucket), 429 without Retry-After beyond")
parser.add_argument("--burst", type=float, default=10)
parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS with this certificate and key")
args = parser.parse_args()

lock = threading.Lock()
state = {"count": 0, "script": args.responses, "mtime": None, "tokens": args.burst, "at": time.monotonic(),
         "active": 0, "peak": 0, "outstanding": 0, "peak_outstanding": 0}


def rate_limited():
    """Takes a token from the bucket; True when there is none (the request gets a 429)."""
    if args.rate <= 0:
        return False
    now = time.monotonic()
    state["tokens"] = min(args.burst, state["tokens"] + (now - state["at"]) * args.rate)
    state["at"] = now
    if state["tokens"] >= 1:
        state["tokens"] -= 1
        return False
    return True


def script():
    path = args.log + ".responses"
    try:
        mtime = os.stat(path).st_mtime_ns
        if mtime != state["mtime"]:
            with open(path) as f:
                state["script"] = f.read().strip()
            state["mtime"] = mtime
            state["count"] = 0
    except FileNotFoundError:
        pass
    return state["script"].split(",")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()
        with lock:
            state["connections"] = state.get("connections", 0) + 1
            if state["connections"] > state.get("peak_connections", 0):
                state["peak_connections"] = state["connections"]
                with open(args.log + ".peak", "w") as f:
                    f.write(str(state["peak_connections"]))

    def finish(self):
        try:
            super().finish()
        finally:
            with lock:
                state["connections"] -= 1

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with lock:
            state["active"] += 1
            state["peak"] = max(state["peak"], state["active"])
            state["outstanding"] += 1
            if state["outstanding"] > state["peak_outstanding"]:
                state["peak_outstanding"] = state["outstanding"]
                with open(args.log + ".outstanding", "w") as f:
                    f.write(str(state["peak_outstanding"]))
            if rate_limited():
                step = "429"
            else:
                steps = script()
                step = steps[min(state["count"], len(steps) - 1)]
                state["count"] += 1
            record = {"method": self.command, "path": self.path,
                      "headers": {k.lower(): v for k, v in self.headers.items()},
                      "body": body.decode("utf-8", "replace"), "time": time.time(), "answer": step,
                      "concurrent": state["active"], "peak": state["peak"]}
            with open(args.log, "a") as f:
                f.write(json.dumps(record) + "\n")
        try:
            self.answer(step)
        finally:
            with lock:
                state["active"] -= 1

    def answer(self, step):
        if step == "hang":
            time.sleep(args.lifetime)
            return
        parts = step.split(":")
        status = int(parts[0])
        if len(parts) > 1 and parts[1] == "gate":
            while not os.path.exists(args.log + ".gate"):
                time.sleep(0.01)
        elif len(parts) > 1 and parts[1]:
            time.sleep(float(parts[1]))
        with lock:
            state["outstanding"] -= 1
        payload = (args.body if 200 <= status < 300 else args.error_body).encode()
        self.send_response(status)
        if len(parts) > 2 and parts[2]:
            self.send_header("Retry-After", parts[2])
        self.send_header("Content-Length", str(len(payload)))
        if payload:
            self.send_header("Content-Type", "application/json")
        self.end_headers()
        if payload:
            self.wfile.write(payload)

    do_POST = do_PUT = do_GET = do_HEAD = do_DELETE = handle_any


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
if args.tls:
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*args.tls)
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
threading.Timer(args.lifetime, lambda: os._exit(0)).start()
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
