#!/usr/bin/env python3
"""The hook's cost against the outbox's backlog (issue 42): a Claude `Stop` with an empty outbox and with 10,000
entries waiting (a relay that was down left them, backed off: due in an hour), the config as setup writes it
(the default `quiet` rules), for two binaries at once, their runs interleaved in one shuffled loop so machine
noise hits both alike. Two cells per outbox: `push` (a new session each round: the hook commits and wakes the
sender) and `repeat` (the same `Stop` again: recorded only, as the default `quiet.repeats` wants). Wall time
(median) and user+sys CPU (mean, rusage) against `hookctl --version`, and the ratio waiting / empty.
target: waiting <= 1.2x empty, each cell
Run: python3 bench/delivery/backlog_side_by_side.py BEFORE_BINARY AFTER_BINARY   (RUNS=... rounds, default 30)
"""
import json, os, random, subprocess, sys, tempfile, time, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import loopback  # noqa: E402
from timing import timed_run  # noqa: E402
from bench import TOKEN, env_for, fill_due, median, payload, receiver, state, stop_senders  # noqa: E402

RUNS = int(os.environ.get("RUNS", "30"))
CPU = {}


def run(argv, env, data=None, key=None):
    return timed_run(argv, env, data, CPU, key)


def make_home(work, name, url):
    """A HOME with the relay sink and the default rules (no `quiet` override: a repeated Stop is recorded only)."""
    home = os.path.join(work, name)
    os.makedirs(os.path.join(home, ".config", "hookctl"))
    with open(os.path.join(home, ".config", "hookctl", "config.yaml"), "w") as f:
        f.write(f"version: 1\nsinks:\n  - name: relay\n    type: relay\n    url: \"{url}\"\n")
    return home


def fill_waiting(home, count):
    """`count` entries for the relay, tried once and backed off: due in an hour."""
    fill_due(home, count, due_in=3600)


def main():
    binaries = {"before": os.path.abspath(sys.argv[1]), "after": os.path.abspath(sys.argv[2])}
    work = tempfile.mkdtemp(prefix="hookctl-bench-backlog-")
    servers = []
    try:
        relay, port, _ = receiver(work, "relay")
        servers.append(relay)
        url = f"http://127.0.0.1:{port}/n/{TOKEN}"
        homes = {}
        for b in binaries:
            homes[b] = {"empty": make_home(work, b + "-empty", url), "waiting": make_home(work, b + "-waiting", url)}
            fill_waiting(homes[b]["waiting"], 10_000)
        os.sync()
        cells = [(b, k, m) for b in binaries for k in ["empty", "waiting"] for m in ["push", "repeat"]] + [(b, "version", "") for b in binaries]
        times = {cell: [] for cell in cells}
        random.seed(42)
        for round_ in range(RUNS + 2):
            order = list(cells)
            random.shuffle(order)
            for cell in order:
                b, k, m = cell
                key = cell if round_ >= 2 else None
                if k == "version":
                    took = run([binaries[b], "--version"], env_for(homes[b]["empty"]), key=key)
                else:
                    session = str(uuid.uuid4()) if m == "push" else "c2080807-7e55-40ec-8134-9ec438bc5ec7"
                    text = f"turn {round_}" if m == "push" else "the same turn"
                    took = run([binaries[b], "notify", "--agent", "claude"], env_for(homes[b][k]), payload(session=session, text=text), key=key)
                if round_ >= 2:  # the first two rounds start the senders and warm the caches
                    times[cell].append(took)
        for b in binaries:
            for home in homes[b].values():
                stop_senders(home)
        print(f"hook vs the outbox's backlog, median wall / mean CPU of {RUNS} interleaved rounds (default rules; 10,000 waiting, due in an hour):")
        for b in binaries:
            base = median(times[(b, "version", "")])
            cbase = sum(CPU[(b, "version", "")]) / RUNS
            print(f"  {b}: --version {base * 1000:.2f} ms wall, {cbase * 1000:.2f} ms CPU")
            for m in ["push", "repeat"]:
                wall = {k: median(times[(b, k, m)]) for k in ["empty", "waiting"]}
                cpu = {k: sum(CPU[(b, k, m)]) / RUNS for k in ["empty", "waiting"]}
                print(f"    {m:<6} empty {wall['empty'] * 1000:6.2f} ms ({wall['empty'] / base:4.2f}x --version)"
                      f"  waiting {wall['waiting'] * 1000:6.2f} ms ({wall['waiting'] / base:4.2f}x)"
                      f"  waiting/empty wall {wall['waiting'] / wall['empty']:4.2f}x, CPU {cpu['waiting'] / cpu['empty']:4.2f}x")
    finally:
        loopback.clean_up(servers, work)


if __name__ == "__main__":
    main()
