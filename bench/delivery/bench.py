#!/usr/bin/env python3
"""notify on the hook path with a backlog and a busy log, side by side with an empty outbox.

Scenarios, all against a loopback relay answering 204, budget 800 ms, one relay sink:
  empty      an empty outbox                                  (the baseline)
  waiting    10,000 entries waiting, none due                  target: wall and peak memory <= 1.5x empty
             (after the first hook, its due hint spares the others reading the outbox)
  cold       the same, the due hint removed before each run   (every hook reads the 10,000 names)
  due        10,000 entries due (the relay limits 5/s, burst 10) target: wall <= budget + 0.2 s, peak memory
             <= 64 MiB, peak simultaneous connections to the relay <= 16 (hook and the flusher it starts)
  locked     the event log's lock held by another process for 5 s   target: wall <= budget + 0.2 s
Runs are interleaved (one of each per round) so machine noise hits all alike; medians are reported.
Run: bench/delivery/run.sh   (RUNS=… to change the number of rounds, default 30)
"""
import json, os, signal, subprocess, sys, tempfile, time, uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import loopback  # noqa: E402
from loopback import BINARY  # noqa: E402

RUNS = int(os.environ.get("RUNS", "30"))
BUDGET = 0.8
PAYLOAD = json.dumps({"session_id": "c2080807-7e55-40ec-8134-9ec438bc5ec7", "cwd": "/home/u/proj",
                      "hook_event_name": "Stop", "last_assistant_message": "All tests pass. **Done**."}).encode()


def start_receiver(directory, extra=()):
    log = os.path.join(directory, "receiver.jsonl")
    process, port = loopback.start_receiver(log, "204", 1800, extra)
    return process, port, log


def make_home(work, name, port):
    home = os.path.join(work, name)
    os.makedirs(os.path.join(home, ".config", "hookctl"))
    with open(os.path.join(home, ".config", "hookctl", "config.yaml"), "w") as f:
        # Every run pushes: the same Stop again within 10 minutes is otherwise only recorded (`quiet.repeats`).
        f.write(f"version: 1\ndefaults:\n  budget: {int(BUDGET * 1000)}ms\n  quiet: {{repeats: off}}\nsinks:\n  - name: relay\n    type: relay\n"
                f"    url: \"http://127.0.0.1:{port}/n/0123456789abcdef0123456789abcdef\"\n")
    return home


def env_for(home, background=False):
    env = {"HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin", "SSHIDO_SESSION": "1", "LANG": "C.UTF-8"}
    if not background:
        env["HOOKCTL_NO_BACKGROUND"] = "1"
    return env


def template_entry(work, port):
    """One real outbox entry, made by notify against a relay that refuses, to copy into backlogs."""
    home = os.path.join(work, "template")
    os.makedirs(os.path.join(home, ".config", "hookctl"))
    with open(os.path.join(home, ".config", "hookctl", "config.yaml"), "w") as f:
        f.write(f"version: 1\ndefaults:\n  budget: 100ms\nsinks:\n  - name: relay\n    type: relay\n"
                f"    url: \"http://127.0.0.1:1/n/0123456789abcdef0123456789abcdef\"\n")
    subprocess.run([BINARY, "notify", "--agent", "claude"], input=PAYLOAD, env=env_for(home), stderr=subprocess.DEVNULL)
    outbox = os.path.join(home, ".local", "state", "hookctl", "outbox")
    name = next(n for n in os.listdir(outbox) if n.endswith(".json"))
    with open(os.path.join(outbox, name)) as f:
        return json.load(f)


def fill(home, template, count, due_offset):
    outbox = os.path.join(home, ".local", "state", "hookctl", "outbox")
    os.makedirs(outbox, exist_ok=True)
    now = time.time()
    for index in range(count):
        entry = json.loads(json.dumps(template))
        event_id = str(uuid.uuid4())
        entry["event"]["id"] = event_id
        created = now - 600 + index * 0.001
        due = now + due_offset
        entry.update(created=created, next_attempt=due, attempts=1, last_attempt=now - 60, age=60)
        name = f"{int(due * 1e6):016d}-{int(created * 1e6):016d}-{event_id}-relay.json"
        with open(os.path.join(outbox, name), "w") as f:
            json.dump(entry, f)


def run_hook(home, background=False):
    start = time.perf_counter()
    process = subprocess.Popen([BINARY, "notify", "--agent", "claude"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=env_for(home, background))
    process.stdin.write(PAYLOAD)
    process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = status
    return time.perf_counter() - start, usage.ru_maxrss / 1024  # MiB


def stop_flushers(home):
    """Stops the background flushers started for this HOME (found by their environment)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"HOME={home}".encode() + b"\0" not in f.read() + b"\0":
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"--background" in f.read():
                    os.kill(int(pid), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main():
    work = tempfile.mkdtemp(prefix="hookctl-bench-delivery-")
    servers = []
    try:
        # No rate limit here: the empty/waiting comparison measures the hook, not the relay's 429s.
        relay, port, log = start_receiver(work)
        servers.append(relay)
        template = template_entry(work, port)
        empty = make_home(work, "empty", port)
        waiting = make_home(work, "waiting", port)
        fill(waiting, template, 10_000, 3600)
        cold = make_home(work, "cold", port)
        fill(cold, template, 10_000, 3600)
        cold_hint = os.path.join(cold, ".local", "state", "hookctl", "outbox.next-due")
        locked = make_home(work, "locked", port)
        samples = {name: ([], []) for name in ["empty", "waiting", "cold", "locked"]}
        for _ in range(RUNS):
            for name, home in [("empty", empty), ("waiting", waiting), ("cold", cold)]:
                if name == "cold" and os.path.exists(cold_hint):
                    os.unlink(cold_hint)
                wall, memory = run_hook(home)
                samples[name][0].append(wall)
                samples[name][1].append(memory)
        # The lock: held for 5 s by flock(1) each time, a few runs only.
        lock_dir = os.path.join(locked, ".local", "state", "hookctl")
        os.makedirs(lock_dir, exist_ok=True)
        for _ in range(3):
            holder = subprocess.Popen(["flock", os.path.join(lock_dir, "events.lock"), "sleep", "5"])
            time.sleep(0.2)
            wall, memory = run_hook(locked)
            samples["locked"][0].append(wall)
            samples["locked"][1].append(memory)
            holder.wait()
        # 10k due, with a fresh relay (its own rate limit and connection count) and the flusher allowed.
        due_relay, due_port, due_log = start_receiver(work, ["--rate", "5", "--burst", "10"])
        servers.append(due_relay)
        due_walls, due_memory = [], []
        for index in range(3):
            due = make_home(work, f"due{index}", due_port)
            fill(due, template, 10_000, -30)
            wall, memory = run_hook(due, background=True)
            due_walls.append(wall)
            due_memory.append(memory)
            time.sleep(3)  # the flusher drains at the relay's pace meanwhile
            stop_flushers(due)
        with open(due_log + ".peak") as f:
            peak_connections = int(f.read())  # as the server sees them: a closed one counts until noticed
        with open(due_log + ".outstanding") as f:
            peak_in_flight = int(f.read())  # requests received and not yet answered
        with open(due_log) as f:
            answers = [json.loads(line)["answer"] for line in f]

        print(f"notify with a backlog, {RUNS} interleaved rounds, budget {int(BUDGET*1000)} ms, relay on loopback (10k due: 5/s, burst 10):")
        for name in ["empty", "waiting", "cold", "locked"]:
            walls, memory = samples[name]
            print(f"  {name:<8} wall median {median(walls)*1000:7.1f} ms  max {max(walls)*1000:7.1f} ms   "
                  f"peak memory median {median(memory):5.1f} MiB (n={len(walls)})")
        print(f"  {'due':<8} wall median {median(due_walls)*1000:7.1f} ms  max {max(due_walls)*1000:7.1f} ms   "
              f"peak memory median {median(due_memory):5.1f} MiB max {max(due_memory):5.1f} MiB (n=3)")
        ratio_wall = median(samples["waiting"][0]) / median(samples["empty"][0])
        ratio_memory = median(samples["waiting"][1]) / median(samples["empty"][1])
        print(f"  ratio waiting/empty: wall {ratio_wall:.2f}x, peak memory {ratio_memory:.2f}x   (target <= 1.5x)")
        print(f"  ratio cold/empty (no due hint): wall {median(samples['cold'][0]) / median(samples['empty'][0]):.2f}x, "
              f"peak memory {median(samples['cold'][1]) / median(samples['empty'][1]):.2f}x")
        print(f"  10k due: max wall {max(due_walls):.3f} s (target <= {BUDGET + 0.2:.1f} s), max memory {max(due_memory):.1f} MiB "
              f"(target <= 64), peak connections to the relay {peak_connections} (target <= 16), "
              f"peak requests in flight {peak_in_flight}, "
              f"requests {len(answers)} in ~3 s per run, 429s {answers.count('429')}")
        print(f"  lock held 5 s: max wall {max(samples['locked'][0]):.3f} s (target <= {BUDGET + 0.2:.1f} s)")
    finally:
        loopback.clean_up(servers, work)


if __name__ == "__main__":
    main()
