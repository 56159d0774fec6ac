#!/usr/bin/env python3
"""Sender CPU per push for a pushover sink with end-to-end encryption (e2ee_key) against the same sink
without it (issue 34: <= 5 % extra), side by side: two HOMEs, the same binary, the same loopback server
(answering as Pushover does), the same backlog of PUSHES due entries, each a needs_input event with a
1,000-character Markdown message (agent-like text: words, code, paths). Each round drains both outboxes
with `hookctl outbox flush` (the sender's own sending path), one after the other in alternating order,
and takes each flush's CPU (user + system, from wait4); the medians of ROUNDS rounds, per push, and
their ratio are printed.
Run: python3 bench/delivery/pushover_e2ee_cpu.py [BINARY]   (PUSHES=30 ROUNDS=7 by default: the sender paces one endpoint at 4.5 requests a second)
HTTPS=1: over TLS (a test CA), as api.pushover.net is reached; without it, plain HTTP to loopback.
INSTRUCTIONS=1: also counts each flush's user-space instructions under valgrind's callgrind (one more
round per side, not timed): a ratio that the load of a shared machine does not move (system time left out).
"""
import json, os, random, statistics, subprocess, sys, tempfile, time, uuid
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import loopback

BINARY = sys.argv[1] if len(sys.argv) > 1 else loopback.BINARY
PUSHES = int(os.environ.get("PUSHES", "30"))
ROUNDS = int(os.environ.get("ROUNDS", "7"))
# HTTPS=1: the stand-in answers over TLS (a test CA), as api.pushover.net does, so both sides go through
# libcurl and its TLS library (libcrypto) is loaded whether or not the push is sealed.
HTTPS = os.environ.get("HTTPS", "") not in ("", "0")
INSTRUCTIONS = os.environ.get("INSTRUCTIONS", "") not in ("", "0")
CA = None
KEY = "8f4c2a9e0b7d6153e2a4c9f01b3d5e7a9c2b4d6e8f0a1c3e5b7d9f1a3c5e7b9d"
random.seed(34)
WORDS = ("the build failed because `make test` could not open /home/u/proj/src/main.swift: permission denied; "
         "approve running **rm -rf .build** and retry? options: Yes, No, always allow for this project").split()


def message():
    text = ""
    while len(text) < 1000:
        text += random.choice(WORDS) + " "
    return text[:1000]


def make_home(work, name, port, encrypted):
    home = os.path.join(work, name)
    os.makedirs(os.path.join(home, ".config", "hookctl"))
    key = f"    e2ee_key_file: {home}/key\n" if encrypted else ""
    with open(os.path.join(home, "key"), "w") as f:
        f.write(KEY + "\n")
    with open(os.path.join(home, ".config", "hookctl", "config.yaml"), "w") as f:
        f.write("version: 1\ndefaults:\n  quiet: {repeats: off}\nsinks:\n  - name: phone\n    type: pushover\n"
                "    token: azGDORePK8gMaC0QOYAMyEEuzJnyUi\n    user: uQiRzpo4DXghDmr9QzzfQu27cmVRsG\n"
                f"    api_url: {'https' if HTTPS else 'http'}://127.0.0.1:{port}\n{key}")
    return home


def fill(home, messages):
    outbox = os.path.join(home, ".local", "state", "hookctl", "outbox")
    os.makedirs(outbox, exist_ok=True)
    now = time.time()
    for index, text in enumerate(messages):
        event_id = str(uuid.uuid4())
        created = now - 60 + index * 0.001
        due = now - 1
        entry = {"sink": "phone", "attempts": 0, "created": created, "next_attempt": due,
                 "event": {"id": event_id, "time": created, "agent": "claude", "kind": "needs_input",
                           "agent_event": "Notification", "title": "Claude Code needs your input", "message": text,
                           "markdown": text, "priority": "high", "host": "h", "session_id": str(uuid.uuid4())}}
        with open(os.path.join(outbox, f"{int(due * 1e6):016d}-{int(created * 1e6):016d}-{event_id}-phone.json"), "w") as f:
            json.dump(entry, f)


def flush(home, counted=None):
    """CPU seconds of one `outbox flush` that drains the home's backlog (with `counted`, a callgrind output
    file: run under callgrind, which writes the instructions there)."""
    env = {"HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOOKCTL_NO_BACKGROUND": "1"}
    if CA:
        env["CURL_CA_BUNDLE"] = CA
    command = [BINARY, "outbox", "flush"]
    if counted:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + counted, *command]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"bench: outbox flush failed in {home}: {process.stderr.read().decode()[:400]}")
    left = os.listdir(os.path.join(home, ".local", "state", "hookctl", "outbox"))
    if any(name.endswith(".json") and not name.startswith(".") for name in left):
        sys.exit(f"bench: {home}: the flush left entries")
    return usage.ru_utime + usage.ru_stime


work = tempfile.mkdtemp(prefix="hookctl-bench-pushover-")
servers = []
try:
    log = os.path.join(work, "pushover.jsonl")
    tls = []
    if HTTPS:
        CA, cert, key = loopback.make_test_ca(os.path.join(work, "tls"))
        tls = ["--tls", cert, key]
    server, port = loopback.start_receiver(log, "200", 3600, ["--body", json.dumps({"status": 1, "request": "r"}), *tls])
    servers.append(server)
    homes = {"plain": make_home(work, "plain", port, False), "e2ee": make_home(work, "e2ee", port, True)}
    cpu = {"plain": [], "e2ee": []}
    for round_number in range(ROUNDS):
        messages = [message() for _ in range(PUSHES)]
        order = ["plain", "e2ee"] if round_number % 2 == 0 else ["e2ee", "plain"]
        for name in order:
            fill(homes[name], messages)
        for name in order:
            cpu[name].append(flush(homes[name]))
    instructions = {}
    if INSTRUCTIONS:
        messages = [message() for _ in range(PUSHES)]
        for name in ("plain", "e2ee"):
            fill(homes[name], messages)
            out = os.path.join(work, f"callgrind.{name}")
            flush(homes[name], counted=out)
            with open(out) as f:
                instructions[name] = next(int(line.split()[1]) for line in f if line.startswith("summary:") or line.startswith("totals:"))
    rounds = ROUNDS + (1 if INSTRUCTIONS else 0)
    with open(log) as f:
        sent = [json.loads(line) for line in f if line.strip()]
    encrypted = sum(1 for r in sent if "encrypted=1" in r["body"])
    if len(sent) != 2 * PUSHES * rounds or encrypted != PUSHES * rounds:
        sys.exit(f"bench: expected {2 * PUSHES * rounds} pushes ({PUSHES * rounds} encrypted), got {len(sent)} ({encrypted})")
    plain = statistics.median(cpu["plain"]) / PUSHES
    e2ee = statistics.median(cpu["e2ee"]) / PUSHES
    print(f"sender CPU per push over {'HTTPS' if HTTPS else 'HTTP'}, {PUSHES} pushes of a 1,000-character message per flush, median of {ROUNDS} rounds ({BINARY}):")
    print(f"  unencrypted: {plain * 1000:.3f} ms")
    print(f"  e2ee:        {e2ee * 1000:.3f} ms")
    print(f"  ratio e2ee / unencrypted: {e2ee / plain:.3f}x   (target <= 1.05x)")
    paired = [e / p for p, e in zip(cpu["plain"], cpu["e2ee"])]
    print(f"  each round's ratio: {' '.join(f'{r:.3f}' for r in paired)}; their median {statistics.median(paired):.3f}x   (load {os.getloadavg()[0]:.2f})")
    if instructions:
        print(f"  user-space instructions per push (callgrind, one flush each): unencrypted {instructions['plain'] / PUSHES:,.0f}, "
              f"e2ee {instructions['e2ee'] / PUSHES:,.0f}, ratio {instructions['e2ee'] / instructions['plain']:.3f}x")
finally:
    loopback.clean_up(servers, work)
