#!/usr/bin/env python3
"""CPU time of the sender (`outbox flush --background`) while it drains a backlog of 10,000 due entries,
one hook a second for 10 s, for one or more binaries side by side (each its own HOME, one loopback relay,
all at once so machine noise hits all alike). Prints each binary's sender CPU (user + system) over the
10 s, from /proc/<pid>/stat.
Run: python3 bench/delivery/sender_cpu.py BINARY [BINARY ...]
"""
import os, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import loopback
from bench import make_home, fill_due, env_for, payload, receiver, senders, stop_senders, wait_for, TOKEN

binaries = sys.argv[1:] or [loopback.BINARY]
work = tempfile.mkdtemp(prefix="hookctl-bench-sender-cpu-")
servers = []
try:
    relay, port, _ = receiver(work, "relay")
    servers.append(relay)
    homes = []
    for index, binary in enumerate(binaries):
        home = make_home(work, f"home-{index}", f"http://127.0.0.1:{port}/n/{TOKEN}")
        fill_due(home, 10_000)
        homes.append(home)

    def hook(index, turn):
        subprocess.run([binaries[index], "notify", "--agent", "claude"], input=payload(text=f"turn {turn}"),
                       env=env_for(homes[index]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def cpu(pid):
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    for index in range(len(binaries)):
        hook(index, 0)
    if not wait_for(lambda: all(senders(home) for home in homes), 10):
        sys.exit("bench: a sender did not start")
    time.sleep(2)  # past the first pass, which reads every entry once
    pids = [senders(home)[0] for home in homes]
    start = [cpu(pid) for pid in pids]
    for turn in range(1, 11):
        for index in range(len(binaries)):
            hook(index, turn)
        time.sleep(1)
    used = [cpu(pid) - before for pid, before in zip(pids, start)]
    print("sender CPU over 10 s draining 10,000 due entries, one hook a second:")
    for binary, seconds in zip(binaries, used):
        print(f"  {binary}: {seconds * 1000:.0f} ms")
    for home in homes:
        stop_senders(home)
finally:
    loopback.clean_up(servers, work)
