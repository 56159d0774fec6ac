#!/usr/bin/env python3
"""The hook as the agent runs it: exactly the command string `hookctl setup` writes into ~/.claude/settings.json
for Claude's `Stop` (read back from that file), run through `sh -c` with a Claude `Stop` payload on stdin, side by
side with `hookctl --version` (and, to show what lies between, `hookctl notify --agent claude` started directly),
in three cells: an empty outbox (relay answering 204), the relay answering 503, and 10,000 entries due with the
relay answering after 0.2 s; beside it the same command with the script run by /bin/sh, as it was before its
#! line named hookctl; and the floor: the same command string shape with `hookctl --version` in place of the
hook (`sh -c '[ -n "${SSHIDO_SESSION:-}" ] || exit 0; exec '…/hookctl' --version'`), what the agent's shell
alone adds; and `hookctl --version` against `true` (what starting the binary costs over starting any program).
Each hook is one hookctl process (issue 42). Rounds interleaved and shuffled, medians of wall time.
target: registered command <= 2.0x --version
Run: bench/delivery/run.sh registered   or   python3 bench/delivery/registered_command.py [BINARY]   (RUNS=..., default 40)
"""
import json, os, random, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import loopback  # noqa: E402
from timing import timed_run  # noqa: E402
from bench import TOKEN, env_for, fill_due, median, payload, receiver, stop_senders  # noqa: E402

BINARY = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else loopback.BINARY
RUNS = int(os.environ.get("RUNS", "40"))
SETTLE = float(os.environ.get("SETTLE", "2"))


CPU = {}  # per key: user + system seconds of each run (rusage), beside the wall times


def run(argv, env, data=None, key=None):
    """Wall time of one run; its user + system CPU (the whole process tree it waited for) goes to CPU[key]."""
    return timed_run(argv, env, data, CPU, key)


def set_up(work, name, url):
    """A HOME set up by `hookctl setup` for Claude; returns it and the registered Stop command string."""
    home = os.path.join(work, name)
    os.makedirs(home)
    subprocess.run([BINARY, "setup", "--agents", "claude", "--notify-url", url, "-q"], env={**env_for(home), "SSHIDO_SESSION": ""},
                   check=True, stdout=subprocess.DEVNULL)
    config = os.path.join(home, ".config", "hookctl", "config.yaml")
    with open(config) as f:
        text = f.read()
    # Every run pushes: the same Stop again within 10 minutes is otherwise only recorded (`quiet.repeats`).
    with open(config, "w") as f:
        f.write(text.replace("defaults:\n", "defaults:\n  quiet: {repeats: off}\n", 1))
    with open(os.path.join(home, ".claude", "settings.json")) as f:
        settings = json.load(f)
    commands = [hook["command"] for group in settings["hooks"]["Stop"] for hook in group["hooks"]]
    assert len(commands) == 1, commands
    # The script as it was before it named hookctl on its #! line (/bin/sh ran it), beside it, for the
    # side by side: the same command string with that script's path.
    script = os.path.join(home, ".local", "share", "hookctl", "bin", "hookctl-hook")
    with open(script) as f:
        body = f.read().split("\n", 1)[1]
    with open(script + "-sh", "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(script + "-sh", 0o755)
    return home, commands[0], commands[0].replace("/hookctl-hook'", "/hookctl-hook-sh'")


def main():
    work = tempfile.mkdtemp(prefix="hookctl-bench-registered-")
    servers = []
    try:
        ok, ok_port, _ = receiver(work, "ok")
        failing, failing_port, _ = receiver(work, "failing", "503")
        slow, slow_port, _ = receiver(work, "slow", "204:0.2")
        servers += [ok, failing, slow]
        cells = {}
        for name, port in [("empty", ok_port), ("503", failing_port), ("due", slow_port)]:
            cells[name] = set_up(work, name, f"http://127.0.0.1:{port}/n/{TOKEN}")
        fill_due(cells["due"][0], 10_000)
        os.sync()
        command = cells["empty"][1]
        with open(os.path.join(cells["empty"][0], ".local", "share", "hookctl", "bin", "hookctl-hook")) as f:
            print("the hook script's first line:", f.readline().strip())
        print(f"registered command (the Stop hook in ~/.claude/settings.json, HOME={cells['empty'][0]}):\n  sh -c {command!r}")
        times = {"version": [], "floor": [], "true": []}
        floor = '[ -n "${SSHIDO_SESSION:-}" ] || exit 0; exec ' + "'" + BINARY + "' --version"
        for name in cells:
            times[name] = []
            times[name + " notify"] = []
            times[name + " sh"] = []
        random.seed(35)
        for round_ in range(RUNS + 2):
            if round_ == 2:
                time.sleep(SETTLE)
            order = list(times)
            random.shuffle(order)
            for key in order:
                if key == "version":
                    took = run([BINARY, "--version"], env_for(cells["empty"][0]), key=key if round_ >= 2 else None)
                elif key == "true":
                    took = run(["/bin/true"], env_for(cells["empty"][0]), key=key if round_ >= 2 else None)
                elif key == "floor":
                    took = run(["sh", "-c", floor], env_for(cells["empty"][0]), key=key if round_ >= 2 else None)
                elif key.endswith(" sh"):
                    home, _, before = cells[key.split()[0]]
                    took = run(["sh", "-c", before], env_for(home), payload(text=f"turn {round_}"), key=key if round_ >= 2 else None)
                elif key.endswith(" notify"):
                    home = cells[key.split()[0]][0]
                    took = run([BINARY, "notify", "--agent", "claude"], env_for(home), payload(text=f"turn {round_}"), key=key if round_ >= 2 else None)
                else:
                    home, registered, _ = cells[key]
                    took = run(["sh", "-c", registered], env_for(home), payload(text=f"turn {round_}"), key=key if round_ >= 2 else None)
                if round_ >= 2:  # the first two rounds start the senders and warm the caches
                    times[key].append(took)
        for home, _, _ in cells.values():
            stop_senders(home)
        base = median(times["version"])
        print(f"wall time, median of {RUNS} interleaved rounds (hookctl --version {base * 1000:.2f} ms):")
        print(f"  hookctl --version vs true ({median(times['true']) * 1000:.2f} ms): {base / median(times['true']):5.2f}x")
        print(f"  the floor: the agent's sh -c with --version in the hook's place {median(times['floor']) / base:5.2f}x")
        for name, label in [("empty", "empty outbox"), ("503", "relay answering 503"), ("due", "10,000 due, relay 0.2 s")]:
            whole, direct, before = median(times[name]), median(times[name + " notify"]), median(times[name + " sh"])
            print(f"  {label:<24} registered command {whole * 1000:6.2f} ms {whole / base:5.2f}x   "
                  f"(script under /bin/sh, as before: {before * 1000:6.2f} ms {before / base:5.2f}x)   "
                  f"notify alone {direct * 1000:6.2f} ms {direct / base:5.2f}x")
        cpu = {key: sum(values) / len(values) for key, values in CPU.items()}
        print(f"CPU (user + system, mean; hookctl --version {cpu['version'] * 1000:.2f} ms, {cpu['version'] / max(cpu['true'], 1e-6):.2f}x true's): "
              f"floor {cpu['floor'] / cpu['version']:.2f}x; "
              + "; ".join(f"{name} registered {cpu[name] / cpu['version']:.2f}x, notify alone {cpu[name + ' notify'] / cpu['version']:.2f}x"
                          for name in ("empty", "503", "due")))
    finally:
        loopback.clean_up(servers, work)


if __name__ == "__main__":
    main()
