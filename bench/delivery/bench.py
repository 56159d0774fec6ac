#!/usr/bin/env python3
"""Delivery after issue 22 (a hook only commits; one sender per user sends), side by side with baselines.

  hook     wall time of a Claude `Stop` hook (relay on loopback, sender allowed) against `hookctl --version`,
           with an empty outbox, with 10,000 entries due, and with the relay down.   target <= 1.5x
           (the backlog is synced to disk before the rounds, and the rounds that count start SETTLE
           seconds, default 2, after the two warm-up rounds that start the senders)
  e2e      hook start -> the relay has the request, against a bare `curl` POST of the same body started the
           same way: HTTP with the sender cold (none running) and warm; HTTPS (a test CA made with openssl)
           warm and cold.                              target HTTP <= 1.0x, HTTPS warm <= 0.5x
  kills    85 hooks killed with SIGKILL at random moments (0-30 ms) and the sender killed mid-send, the
           relay answering after 0.5 s: events lost (logged, never delivered) and extra deliveries; then
           20 hooks against a relay answering after 3 s, no kills: extra deliveries.  target 0 lost, <= 5 %, 0
           (the sender is killed 3 times while it waits for an answer)
  flush    60 hooks, half killed 0-30 ms and half 0-600 ms after they start, the relay answering after 0.5 s, then
           `hookctl outbox flush` twice (a person who wants the queue empty now) beside the running sender:
           events lost and extra deliveries; the same with no kills.       target 0 lost, <= 5 %, 0 with no kills
  outage   a 20 s outage with 50 events from 5 sessions: seconds from recovery to the first delivery,
           deliveries, and whether they are each session's last event, oldest first.  target <= 10 s, 5
Runs are interleaved (one of each per round) so machine noise hits all alike; medians are reported.
Run: bench/delivery/run.sh [hook] [e2e] [kills] [flush] [outage]   (RUNS=… rounds, default 20)
"""
import json, os, random, signal, subprocess, sys, tempfile, time, uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import loopback  # noqa: E402
from loopback import BINARY, RECEIVER  # noqa: E402

RUNS = int(os.environ.get("RUNS", "20"))
# Seconds between the two warm-up rounds and the measured ones (SETTLE=0: none).
SETTLE = float(os.environ.get("SETTLE", "2"))
TOKEN = "0123456789abcdef0123456789abcdef"
random.seed(22)


def payload(session="c2080807-7e55-40ec-8134-9ec438bc5ec7", text="All tests pass. **Done**.", event="Stop"):
    body = {"session_id": session, "cwd": "/home/u/proj", "hook_event_name": event}
    if event == "Stop":
        body["last_assistant_message"] = text
    else:
        body.update(message=text, notification_type="permission_prompt")
    return json.dumps(body).encode()


def receiver(work, name, responses="204", extra=()):
    log = os.path.join(work, name + ".jsonl")
    process, port = loopback.start_receiver(log, responses, 3600, extra)
    return process, port, log


def requests(log):
    try:
        with open(log) as f:
            text = f.read()
    except FileNotFoundError:
        return []
    # The receiver may be writing its last line right now: only whole lines count.
    return [json.loads(line) for line in text.split("\n")[:-1] if line.strip()]


def make_home(work, name, url):
    home = os.path.join(work, name)
    os.makedirs(os.path.join(home, ".config", "hookctl"))
    with open(os.path.join(home, ".config", "hookctl", "config.yaml"), "w") as f:
        # Every run pushes: the same Stop again within 10 minutes is otherwise only recorded (`quiet.repeats`).
        f.write(f"version: 1\ndefaults:\n  quiet: {{repeats: off}}\nsinks:\n  - name: relay\n    type: relay\n    url: \"{url}\"\n")
    return home


def env_for(home, extra=None):
    env = {"HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin", "SSHIDO_SESSION": "1", "LANG": "C.UTF-8"}
    env.update(extra or {})
    return env


def state(home, *parts):
    return os.path.join(home, ".local", "state", "hookctl", *parts)


def outbox_names(home):
    try:
        return [n for n in os.listdir(state(home, "outbox")) if n.endswith(".json") and not n.startswith(".")]
    except FileNotFoundError:
        return []


def fill_due(home, count, due_in=-1):
    """`count` entries for the relay, tried once, due `due_in` seconds from now (by default due now: a
    backlog a long outage leaves)."""
    outbox = state(home, "outbox")
    os.makedirs(outbox, exist_ok=True)
    now = time.time()
    for index in range(count):
        event_id = str(uuid.uuid4())
        created = now - 600 + index * 0.001
        due = now + due_in
        entry = {"sink": "relay", "attempts": 1, "created": created, "next_attempt": due, "age": 60, "last_attempt": now - 60,
                 "event": {"id": event_id, "time": created, "agent": "claude", "kind": "done", "agent_event": "Stop",
                           "title": f"old {index}", "message": "m", "priority": "normal", "host": "h"}}
        with open(os.path.join(outbox, f"{int(due * 1e6):016d}-{int(created * 1e6):016d}-{event_id}-relay.json"), "w") as f:
            json.dump(entry, f)


def senders(home):
    """Pids of the senders (`outbox flush --background`) started for this HOME."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"HOME={home}".encode() + b"\0" not in f.read() + b"\0":
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"--background" in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def stop_senders(home):
    for pid in senders(home):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.time() + 5
    while senders(home) and time.time() < deadline:
        time.sleep(0.005)


def run(argv, env, data=None):
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    if data is not None:
        process.stdin.write(data)
    process.stdin.close()
    process.wait()
    return time.perf_counter() - start


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def wait_for(check, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if check():
            return True
        time.sleep(0.002)
    return check()


# ---------------------------------------------------------------------------------------------------------

def bench_hook(work, servers):
    relay, port, _ = receiver(work, "hook-relay")
    servers.append(relay)
    url = f"http://127.0.0.1:{port}/n/{TOKEN}"
    homes = {"empty": make_home(work, "hook-empty", url), "due": make_home(work, "hook-due", url),
             "down": make_home(work, "hook-down", f"http://127.0.0.1:1/n/{TOKEN}")}
    fill_due(homes["due"], 10_000)
    # The backlog's 10,000 new files go to disk now, not during the measured rounds (their writeback
    # would load the machine under every cell); and the senders, started by the first round, finish their
    # first pass (a cold sender reads every entry once) before the rounds that count.
    os.sync()
    times = {"version": [], "empty": [], "due": [], "down": []}
    for round_ in range(RUNS + 2):
        if round_ == 2:
            time.sleep(SETTLE)
        order = list(times)
        random.shuffle(order)
        for name in order:
            if name == "version":
                took = run([BINARY, "--version"], env_for(homes["empty"]))
            else:
                took = run([BINARY, "notify", "--agent", "claude"], env_for(homes[name]), payload(text=f"turn {round_}"))
            if round_ >= 2:  # the first two rounds start the senders and warm the caches
                times[name].append(took)
    for home in homes.values():
        stop_senders(home)
    base = median(times["version"])
    print(f"hook wall time, median of {RUNS} (hookctl --version {base * 1000:.1f} ms):")
    for name, label in [("empty", "empty outbox"), ("due", "10,000 entries due"), ("down", "relay down")]:
        print(f"  {label:<20} {median(times[name]) * 1000:7.1f} ms   {median(times[name]) / base:5.2f}x --version")


def e2e_once(argv, env, data, log):
    # Hooks far apart, as agents' are: back to back, they would reach the relay's pace (4.5/s) and wait for it.
    time.sleep(0.3)
    before = len(requests(log))
    start = time.time()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    if data is not None:
        process.stdin.write(data)
    process.stdin.close()
    wait_for(lambda: len(requests(log)) > before, 30)
    process.wait()
    seen = requests(log)
    return seen[-1]["time"] - start if len(seen) > before else float("inf")


def bench_e2e(work, servers):
    tls = os.path.join(work, "tls")
    loopback.make_test_ca(tls)
    plain, port, plain_log = receiver(work, "e2e-http")
    secure, tls_port, tls_log = receiver(work, "e2e-https", extra=("--tls", f"{tls}/server.pem", f"{tls}/server.key"))
    servers += [plain, secure]
    http_url, https_url = f"http://127.0.0.1:{port}/n/{TOKEN}", f"https://127.0.0.1:{tls_port}/n/{TOKEN}"
    http_home, https_home = make_home(work, "e2e-http", http_url), make_home(work, "e2e-https", https_url)
    body = os.path.join(work, "body.json")
    with open(body, "w") as f:
        json.dump({"title": "Claude Code finished · proj", "body": "All tests pass. Done.", "priority": "normal",
                   "sessionRef": "c2080807", "hostRef": "host"}, f)
    curl = ["curl", "-s", "-o", "/dev/null", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", f"@{body}"]
    tls_env = {"CURL_CA_BUNDLE": f"{tls}/ca.pem"}
    cases = {
        "curl http": lambda i: e2e_once(curl + [http_url], env_for(http_home), None, plain_log),
        "hook http cold": lambda i: (stop_senders(http_home), e2e_once([BINARY, "notify", "--agent", "claude"], env_for(http_home),
                                                                      payload(text=f"c{i}"), plain_log))[1],
        "hook http warm": lambda i: e2e_once([BINARY, "notify", "--agent", "claude"], env_for(http_home), payload(text=f"w{i}"), plain_log),
        "curl https": lambda i: e2e_once(curl + ["--cacert", f"{tls}/ca.pem", https_url], env_for(https_home), None, tls_log),
        "hook https cold": lambda i: (stop_senders(https_home), e2e_once([BINARY, "notify", "--agent", "claude"],
                                                                        env_for(https_home, tls_env), payload(text=f"c{i}"), tls_log))[1],
        "hook https warm": lambda i: e2e_once([BINARY, "notify", "--agent", "claude"], env_for(https_home, tls_env),
                                              payload(text=f"w{i}"), tls_log),
    }
    times = {name: [] for name in cases}
    for round_ in range(RUNS + 1):
        # Cold before warm within a round: the warm run then finds the sender the cold one started.
        for name in ["curl http", "hook http cold", "hook http warm", "curl https", "hook https cold", "hook https warm"]:
            took = cases[name](round_)
            if round_ >= 1:
                times[name].append(took)
    for home in (http_home, https_home):
        stop_senders(home)
    print(f"end to end, hook start -> the relay has the request, median of {RUNS}:")
    for scheme in ("http", "https"):
        base = median(times[f"curl {scheme}"])
        print(f"  bare curl {scheme:<5}     {base * 1000:7.1f} ms")
        for mode in ("cold", "warm"):
            value = median(times[f"hook {scheme} {mode}"])
            print(f"  hook {scheme:<5} {mode:<5}    {value * 1000:7.1f} ms   {value / base:5.2f}x curl")


def tally(home, log):
    with open(state(home, "events.jsonl")) as f:
        logged = set()
        for line in f:
            try:
                logged.add(json.loads(line)["id"])
            except (ValueError, KeyError):
                pass  # the torn start of a line a killed writer left
    delivered = [r["headers"].get("idempotency-key") for r in requests(log) if r["answer"].startswith("2")]
    return logged, delivered


def bench_kills(work, servers):
    relay, port, log = receiver(work, "kills", "204:0.5")
    servers.append(relay)
    home = make_home(work, "kills", f"http://127.0.0.1:{port}/n/{TOKEN}")
    count = 85
    for index in range(count):
        process = subprocess.Popen([BINARY, "notify", "--agent", "claude"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=env_for(home))
        process.stdin.write(payload(session=f"s-{index}", text=f"event {index}"))
        process.stdin.close()
        time.sleep(random.uniform(0, 0.03))
        process.kill()
        process.wait()
        if index in (20, 45, 70):
            time.sleep(random.uniform(0.1, 0.4))  # the sender is mid-send: its answer takes 0.5 s
            stop_senders(home)
    run([BINARY, "outbox", "flush", "--background", "--linger", "0s"], env_for(home))
    wait_for(lambda: not outbox_names(home), 120)
    logged, delivered = tally(home, log)
    lost = logged - set(delivered)
    extra = len(delivered) - len(set(delivered))
    print(f"kill -9 loop: {count} hooks killed at random, the sender killed mid-send 3 times: {len(logged)} events logged, "
          f"{len(lost)} lost, {extra} extra deliveries ({100 * extra / max(1, len(logged)):.1f} %)")

    slow, slow_port, slow_log = receiver(work, "slow", "204:3")
    servers.append(slow)
    slow_home = make_home(work, "slow", f"http://127.0.0.1:{slow_port}/n/{TOKEN}")
    for index in range(20):
        run([BINARY, "notify", "--agent", "claude"], env_for(slow_home), payload(session=f"s-{index}", text=f"slow {index}"))
    wait_for(lambda: not outbox_names(slow_home), 180)
    logged, delivered = tally(slow_home, slow_log)
    print(f"relay answering after 3 s, 20 hooks, no kills: {len(delivered)} deliveries, {len(delivered) - len(set(delivered))} extra, "
          f"{len(logged - set(delivered))} lost")
    stop_senders(home)
    stop_senders(slow_home)


def bench_flush(work, servers):
    """A person's `outbox flush`, twice, beside the running sender: hooks killed at random (0-30 ms and 0-600 ms
    after they start, the relay answering after 0.5 s), then the flushes while the sender still drains."""
    for label, kills in (("killed at random", True), ("no kills", False)):
        name = "flush-" + label.split()[0]
        relay, port, log = receiver(work, name, "204:0.5")
        servers.append(relay)
        home = make_home(work, name, f"http://127.0.0.1:{port}/n/{TOKEN}")
        count = 60
        for index in range(count):
            process = subprocess.Popen([BINARY, "notify", "--agent", "claude"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, env=env_for(home))
            process.stdin.write(payload(session=f"s-{index}", text=f"event {index}"))
            process.stdin.close()
            if kills:
                time.sleep(random.uniform(0, 0.03) if index % 2 == 0 else random.uniform(0, 0.6))
                process.kill()
            process.wait()
        flushes = [run([BINARY, "outbox", "flush"], env_for(home)) for _ in range(2)]
        wait_for(lambda: not outbox_names(home), 120)
        logged, delivered = tally(home, log)
        lost = logged - set(delivered)
        extra = len(delivered) - len(set(delivered))
        print(f"outbox flush twice beside the sender, {count} hooks {label}: {len(logged)} events logged, {len(lost)} lost, "
              f"{extra} extra deliveries ({100 * extra / max(1, len(logged)):.1f} %); the flushes took "
              f"{flushes[0]:.1f} s and {flushes[1]:.1f} s")
        stop_senders(home)


def bench_outage(work, servers):
    relay, port, log = receiver(work, "outage", "503")
    servers.append(relay)
    home = make_home(work, "outage", f"http://127.0.0.1:{port}/n/{TOKEN}")
    start = time.time()
    last = {}
    for index in range(50):
        session = f"session-{index % 5}"
        event = "Stop"
        text = f"{session} event {index}"
        run([BINARY, "notify", "--agent", "claude"], env_for(home), payload(session=session, text=text, event=event))
        last[session] = text
        time.sleep(max(0, start + (index + 1) * 0.35 - time.time()))  # 50 events over the first ~17.5 s
    time.sleep(max(0, start + 20 - time.time()))
    with open(log + ".responses", "w") as f:
        f.write("204")
    recovered = time.time()
    wait_for(lambda: not outbox_names(home), 120)
    good = [r for r in requests(log) if r["answer"].startswith("2")]
    bodies = [json.loads(r["body"])["body"] for r in good]
    expected = sorted(last.values(), key=lambda text: int(text.rsplit(" ", 1)[1]))
    first = good[0]["time"] - recovered if good else float("inf")
    print(f"20 s outage, 50 events from 5 sessions: first delivery {first:.1f} s after recovery, {len(good)} deliveries, "
          f"each session's last event only: {sorted(bodies) == sorted(expected)}, oldest first: {bodies == expected}")
    stop_senders(home)


def main():
    chosen = sys.argv[1:] or ["hook", "e2e", "kills", "flush", "outage"]
    work = tempfile.mkdtemp(prefix="hookctl-bench-delivery-")
    servers = []
    try:
        for name in chosen:
            {"hook": bench_hook, "e2e": bench_e2e, "kills": bench_kills, "flush": bench_flush, "outage": bench_outage}[name](work, servers)
    finally:
        loopback.clean_up(servers, work)


if __name__ == "__main__":
    main()
