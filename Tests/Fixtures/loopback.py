"""What the loopback stand-ins share: a quiet HTTP/1.1 handler that reads a request body and answers
JSON, and a threaded server on a loopback port the kernel picks (the script prints it)."""
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send_head(self, status, headers):
        """The status line and `headers` (name, value pairs); a `Connection: close` closes it after this answer."""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()

    def send_body(self, data, content_type, status=200, headers=()):
        self.send_head(status, [("Content-Type", content_type), ("Content-Length", str(len(data)))] + list(headers))
        self.wfile.write(data)

    def send_json(self, value, status=200, newline=False):
        self.send_body((json.dumps(value) + ("\n" if newline else "")).encode(), "application/json", status)


def loopback_server(handler):
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    return server
