#!/usr/bin/env python3
"""A loopback stand-in of Pushover's message API (pushover.net/api) for hookctl's tests, run with the
Python of the Apprise venv (scripts/install-apprise.sh).

POST /1/messages.json, form-encoded (or JSON), is checked as Pushover checks it: the token and user
must be the ones given (else 400 with Pushover's `errors` body), `message` is required, `title` at most
250 characters, `message` 1024, `url` 512, `url_title` 100, `priority` -2..2 (2 needs `retry` >= 30 and
`expire` <= 10800), `html` only 1, `timestamp` a number. With `encrypted=1` each of message, title, url
and url_title must be a field sealed as pushover.net/api#e2ee defines it: the stand-in checks its
HMAC-SHA256, decrypts it (AES-256-CBC, PKCS#7, gunzip) and then seals the plaintext again with Apprise's
own `NotifyPushover._encrypt_field` under the same IV (gzip's mtime 0): the result must be the field
byte for byte, so hookctl's format is Apprise's format.

POST /1/receipts/cancel_by_tag/TAG.json (emergency pushes) is answered {"status":1}.

Each request is one JSON line in --log: path, the form fields as sent, `opened` (the plaintexts),
`problems` (what Pushover would refuse) and `reproduced` (the Apprise check). The port is printed on stdout.
--responses STATUS,... scripts the statuses (the last repeats); a 2xx answer with problems is a 400.
"""
import argparse, base64, gzip, hashlib, hmac, json, sys, threading, time, types, uuid, zlib
from loopback import QuietHandler, loopback_server
from urllib.parse import parse_qsl

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
import apprise.plugins.pushover as pushover

parser = argparse.ArgumentParser()
parser.add_argument("--log", required=True)
parser.add_argument("--token", required=True)
parser.add_argument("--user", required=True)
parser.add_argument("--key", default="", help="the e2ee key, 64 hex digits")
parser.add_argument("--responses", default="200")
parser.add_argument("--lifetime", type=float, default=300)
args = parser.parse_args()
key = bytes.fromhex(args.key) if args.key else None
lock = threading.Lock()
count = [0]
LIMITS = {"message": 1024, "title": 250, "url": 512, "url_title": 100}
# hookctl's deflate window and memory level (Sources/CZlib/shim.h).
HOOKCTL_WINDOW_BITS, HOOKCTL_MEMORY_LEVEL = 10, 4


def open_field(text):
    raw = base64.b64decode(text, validate=True)
    iv, cipher, mac = raw[:16], raw[16:-32], raw[-32:]
    if not hmac.compare_digest(hmac.new(key, iv + cipher, hashlib.sha256).digest(), mac):
        raise ValueError("bad MAC")
    decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    padded = decryptor.update(cipher) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    packed = unpadder.update(padded) + unpadder.finalize()
    return gzip.decompress(packed).decode("utf-8"), iv, packed[8], packed[9]


def apprise_seal(plaintext, iv, extra_flags, os_byte):
    """Apprise's own _encrypt_field, with its random IV and gzip's clock fixed to what hookctl used (and
    the gzip header's OS byte, which Python versions write differently, taken from hookctl's field). How
    to deflate is gzip's free choice, which any gunzip reads: the level is the one hookctl's header says
    (XFL, RFC 1952: 2 the slowest, level 9; 4 the fastest, level 1; 0 any other, zlib's default 6), the
    window and memory level hookctl's (HK_GZIP_WINDOW_BITS, HK_GZIP_MEMORY_LEVEL in Sources/CZlib/shim.h)."""
    level = {2: 9, 4: 1}.get(extra_flags, 6)
    saved_os, saved_gzip = pushover._os, pushover.gzip
    pushover._os = types.SimpleNamespace(urandom=lambda n: iv)
    def compress(data):
        deflater = zlib.compressobj(level, zlib.DEFLATED, 16 + HOOKCTL_WINDOW_BITS, HOOKCTL_MEMORY_LEVEL)
        packed = bytearray(deflater.compress(data) + deflater.flush())
        packed[9] = os_byte
        return bytes(packed)
    pushover.gzip = types.SimpleNamespace(compress=compress)
    try:
        plugin = pushover.NotifyPushover.__new__(pushover.NotifyPushover)
        plugin.logger = types.SimpleNamespace(debug=lambda *a, **k: None)
        return pushover.NotifyPushover._encrypt_field(plugin, plaintext, key)
    finally:
        pushover._os, pushover.gzip = saved_os, saved_gzip


def check(fields):
    problems, opened, reproduced = [], {}, True
    if fields.get("token") != args.token:
        problems.append("application token is invalid")
    if fields.get("user") != args.user:
        problems.append("user identifier is not a valid user, group, or subscribed user key")
    if not fields.get("message"):
        problems.append("message cannot be blank")
    for name, limit in LIMITS.items():
        if name in fields and len(fields[name]) > limit:
            problems.append("%s is too long (%d > %d)" % (name, len(fields[name]), limit))
    if fields.get("priority", "0") not in ("-2", "-1", "0", "1", "2"):
        problems.append("priority is invalid")
    if fields.get("priority") == "2" and not (int(fields.get("retry", "0")) >= 30 and 0 < int(fields.get("expire", "0")) <= 10800):
        problems.append("retry and expire are required for emergency priority")
    if "html" in fields and fields["html"] != "1":
        problems.append("html must be 1")
    if "timestamp" in fields and not fields["timestamp"].isdigit():
        problems.append("timestamp is invalid")
    if fields.get("encrypted") == "1":
        if key is None:
            problems.append("encrypted without a key on this stand-in")
        else:
            for name in LIMITS:
                if name not in fields:
                    continue
                try:
                    opened[name], iv, extra_flags, os_byte = open_field(fields[name])
                    if apprise_seal(opened[name], iv, extra_flags, os_byte) != fields[name]:
                        reproduced = False
                except Exception as error:
                    problems.append("%s does not decrypt: %s" % (name, error))
                    reproduced = False
    elif "encrypted" in fields:
        problems.append("encrypted must be 1")
    else:
        opened = {name: fields[name] for name in LIMITS if name in fields}
    return problems, opened, reproduced


class Handler(QuietHandler):
    protocol_version = "HTTP/1.0"  # one request a connection, as this stand-in always answered

    def do_POST(self):
        body = self.read_body()
        kind = self.headers.get("Content-Type", "")
        fields = dict(json.loads(body)) if kind.startswith("application/json") else dict(parse_qsl(body.decode("ascii"), keep_blank_values=True))
        record = {"path": self.path, "content_type": kind, "fields": fields, "time": time.time()}
        if self.path.startswith("/1/receipts/cancel_by_tag/"):
            problems = [] if fields.get("token") == args.token else ["application token is invalid"]
            record.update(problems=problems)
        elif self.path == "/1/messages.json":
            problems, opened, reproduced = check(fields)
            record.update(problems=problems, opened=opened, reproduced=reproduced)
        else:
            problems = ["not found"]
            record.update(problems=problems)
        with lock:
            steps = args.responses.split(",")
            status = int(steps[min(count[0], len(steps) - 1)])
            count[0] += 1
            record["status"] = status
            with open(args.log, "a") as f:
                f.write(json.dumps(record) + "\n")
        request = str(uuid.uuid4())
        if 200 <= status < 300 and problems:
            status = 400
        if 200 <= status < 300:
            answer = {"status": 1, "request": request}
        elif status == 429:
            answer = {"status": 0, "errors": ["message limit reached"], "request": request}
        elif status >= 500:
            answer = {"status": 0, "errors": ["temporary failure"], "request": request}
        else:
            answer = {"status": 0, "errors": problems or ["rejected"], "request": request}
            if any("user" in p for p in problems):
                answer["user"] = "invalid"
            if any("token" in p for p in problems):
                answer["token"] = "invalid"
        self.send_json(answer, status)


server = loopback_server(Handler)
print(server.server_address[1], flush=True)
threading.Timer(args.lifetime, server.shutdown).start()
server.serve_forever()
