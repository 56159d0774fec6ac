#!/usr/bin/env python3
"""The delivery bench's `hook` measurement (bench.py: a Claude `Stop` with an empty outbox, with 10,000 entries
due, with the relay down, against `hookctl --version`) for two binaries at once, their runs interleaved in one
shuffled loop so machine noise hits both alike; wall time (median) and user+sys CPU time (mean, rusage).
Run: python3 bench/delivery/hook_side_by_side.py BEFORE_BINARY AFTER_BINARY   (RUNS=… rounds, default 30)
"""
import os, random, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import bench
from bench import make_home, fill_due, env_for, payload, receiver, stop_senders, median, TOKEN
import subprocess, time
cpu = {}



def run(argv, env, data=None):
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    if data is not None:
        process.stdin.write(data)
    process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    took = time.perf_counter() - start
    run.last_cpu = usage.ru_utime + usage.ru_stime
    return took
import loopback
binaries = {"before": sys.argv[1], "after": sys.argv[2]}
RUNS = int(os.environ.get("RUNS", "30"))
# Seconds between two runs (default 0: back to back). With a gap, each run measures a hook, not the previous
# hook's sender at work beside it; on this VM an idle gap also slows every run (--version 1.6 -> 2.5 ms).
GAP = float(os.environ.get("GAP", "0"))
work = tempfile.mkdtemp(prefix="hookctl-bench-hook-side-")
servers = []
relay, port, _ = receiver(work, "relay"); servers.append(relay)
url = f"http://127.0.0.1:{port}/n/{TOKEN}"
homes = {}
for b in binaries:
    homes[b] = {"empty": make_home(work, b + "-empty", url), "due": make_home(work, b + "-due", url),
                "down": make_home(work, b + "-down", f"http://127.0.0.1:1/n/{TOKEN}")}
    fill_due(homes[b]["due"], 10_000)
times = {(b, k): [] for b in binaries for k in ["version", "empty", "due", "down"]}
random.seed(22)
for round_ in range(RUNS + 2):
    order = list(times); random.shuffle(order)
    for (b, k) in order:
        time.sleep(GAP)
        if k == "version":
            took = run([binaries[b], "--version"], env_for(homes[b]["empty"]))
        else:
            took = run([binaries[b], "notify", "--agent", "claude"], env_for(homes[b][k]), payload(text=f"turn {round_}"))
        if round_ >= 2:
            times[(b, k)].append(took)
            cpu.setdefault((b, k), []).append(run.last_cpu)
for b in binaries:
    for h in homes[b].values(): stop_senders(h)
loopback.clean_up(servers, work)
print(f"hook wall time, median of {RUNS}, interleaved:")
for b in binaries:
    base = median(times[(b, "version")])
    row = "  ".join(f"{k} {median(times[(b, k)]) * 1000:6.2f} ms {median(times[(b, k)]) / base:4.2f}x" for k in ["empty", "due", "down"])
    print(f"  {b:<7} wall: --version {base * 1000:5.2f} ms   {row}")
    cbase = sum(cpu[(b, "version")]) / len(cpu[(b, "version")])
    crow = "  ".join(f"{k} {sum(cpu[(b, k)]) / len(cpu[(b, k)]) * 1000:6.2f} ms {sum(cpu[(b, k)]) / len(cpu[(b, k)]) / cbase:4.2f}x" for k in ["empty", "due", "down"])
    print(f"  {b:<7} cpu (user+sys, mean): --version {cbase * 1000:5.2f} ms   {crow}")
