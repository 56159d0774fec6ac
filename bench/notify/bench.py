#!/usr/bin/env python3
"""hookctl notify against the bash+jq+curl hook and a bare curl POST, side by side, same loopback receiver.

Targets: hookctl <= 0.35x the bash script and <= 1.3x bare curl (median wall time);
with a sink that never answers the hook returns in under 1 s; four sinks that each take 300 ms are
served in under 450 ms. Run: bench/notify/run.sh (builds the release binary first).
"""
import json, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from timing import measure, report  # noqa: E402
import loopback  # noqa: E402
from loopback import BINARY, ROOT  # noqa: E402

RUNS = int(os.environ.get("RUNS", "200"))
# Another hookctl (e.g. main's release build) measured in the same interleaved rounds, with a config it reads.
BASELINE = os.environ.get("BASELINE_HOOKCTL")


def start_receiver(directory, responses):
    log = os.path.join(directory, f"receiver-{len(os.listdir(directory))}.jsonl")
    process, port = loopback.start_receiver(log, responses, 900)
    return process, port, log


def write_config(home, sinks, quiet=True):
    os.makedirs(os.path.join(home, ".config", "hookctl"), exist_ok=True)
    # Every run sends the same Stop: with the repeat rule on, all but the first would be recorded and not
    # sent, and the benchmark would no longer measure a push.
    lines = ["version: 1", "defaults:", "  budget: 800ms"] + (["  quiet: {repeats: off}"] if quiet else []) + ["sinks:"]
    for index, port in enumerate(sinks):
        lines += [f"  - name: relay{index}", "    type: relay", f'    url: "http://127.0.0.1:{port}/n/0123456789abcdef{index}"']
    with open(os.path.join(home, ".config", "hookctl", "config.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    work = tempfile.mkdtemp(prefix="hookctl-bench-")
    servers = []
    try:
        home = os.path.join(work, "home")
        os.makedirs(home)
        process, port, log = start_receiver(work, "204")
        servers.append(process)
        url = f"http://127.0.0.1:{port}/n/0123456789abcdef"
        write_config(home, [port])
        url_file = os.path.join(work, "url")
        with open(url_file, "w") as f:
            f.write(url)
        payload = os.path.join(work, "stop.json")
        with open(payload, "w") as f:
            json.dump({"session_id": "c2080807-7e55-40ec-8134-9ec438bc5ec7", "transcript_path": "/tmp/t.jsonl",
                       "cwd": "/home/u/proj", "permission_mode": "default", "hook_event_name": "Stop",
                       "stop_hook_active": False, "last_assistant_message": "All tests pass. **Done**."}, f)
        body = os.path.join(work, "body.json")
        with open(body, "w") as f:
            json.dump({"title": "Claude Code finished", "body": "All tests pass. Done.", "priority": "normal",
                       "sessionRef": "", "hostRef": "host"}, f)
        env = {"HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin", "SSHIDO_SESSION": "1", "HOOK_URL_FILE": url_file,
               "HOOKCTL_NO_BACKGROUND": "1", "LANG": "C.UTF-8"}
        commands = {
            "hookctl notify": [BINARY, "notify", "--agent", "claude", "--strict"],
            "bash+jq+curl hook": ["bash", os.path.join(ROOT, "bench", "notify", "baseline-hook.sh")],
            "bare curl POST": ["curl", "-fsS", "-m", "5", "-X", "POST", "-H", "Content-Type: application/json",
                               "-d", "@" + body, url],
        }
        if BASELINE:
            baseline_home = os.path.join(work, "baseline-home")
            os.makedirs(baseline_home)
            write_config(baseline_home, [port], quiet=False)
            commands["baseline hookctl notify"] = ["env", f"HOME={baseline_home}", BASELINE, "notify", "--agent", "claude", "--strict"]
            commands["hookctl notify"] = ["env", f"HOME={home}"] + commands["hookctl notify"]
        print(f"notify, {RUNS} interleaved runs each (Claude Stop payload, one relay sink on loopback answering 204):")
        samples = measure(commands, runs=RUNS, stdin_file=payload, env=env)
        medians = report(samples, [])
        vs_bash = medians["hookctl notify"] / medians["bash+jq+curl hook"]
        vs_curl = medians["hookctl notify"] / medians["bare curl POST"]
        print(f"  ratio hookctl / bash hook = {vs_bash:.3f}   (target <= 0.35)")
        print(f"  ratio hookctl / bare curl = {vs_curl:.3f}   (target <= 1.3)")
        if BASELINE:
            base_curl = medians["baseline hookctl notify"] / medians["bare curl POST"]
            print(f"  baseline hookctl / bare curl = {base_curl:.3f}; hookctl / baseline = "
                  f"{medians['hookctl notify'] / medians['baseline hookctl notify']:.3f}")
        with open(log) as f:
            received = sum(1 for _ in f)
        print(f"  requests received by the loopback relay (all three commands, warm-up included): {received}")

        # A sink that never answers: the hook must still return quickly (budget 800ms).
        hang, hang_port, _ = start_receiver(work, "hang")
        servers.append(hang)
        hang_home = os.path.join(work, "hang-home")
        os.makedirs(hang_home)
        write_config(hang_home, [hang_port])
        hang_env = dict(env, HOME=hang_home)
        times = []
        for _ in range(5):
            with open(payload, "rb") as stdin:
                start = time.perf_counter()
                subprocess.run([BINARY, "notify", "--agent", "claude"], stdin=stdin, env=hang_env, stderr=subprocess.DEVNULL)
                times.append(time.perf_counter() - start)
        times.sort()
        print(f"sink that never answers: hook returned in median {times[2]*1000:.0f} ms, max {times[-1]*1000:.0f} ms (target < 1000 ms)")

        # Four sinks that each take 300 ms, beside one such sink.
        slow_ports = []
        for _ in range(4):
            slow, slow_port, _ = start_receiver(work, "204:0.3")
            servers.append(slow)
            slow_ports.append(slow_port)
        four_home, one_home = os.path.join(work, "four-home"), os.path.join(work, "one-home")
        os.makedirs(four_home)
        os.makedirs(one_home)
        write_config(four_home, slow_ports)
        write_config(one_home, slow_ports[:1])
        slow_samples = measure({"one 300 ms sink": ["env", f"HOME={one_home}", BINARY, "notify", "--agent", "claude", "--strict"],
                                "four 300 ms sinks": ["env", f"HOME={four_home}", BINARY, "notify", "--agent", "claude", "--strict"]},
                               runs=15, warmup=2, stdin_file=payload, env=env)
        slow_medians = report(slow_samples, [])
        print(f"  four sinks: {slow_medians['four 300 ms sinks']*1000:.0f} ms (target < 450 ms); "
              f"ratio four/one = {slow_medians['four 300 ms sinks']/slow_medians['one 300 ms sink']:.3f}")
    finally:
        loopback.clean_up(servers, work)


if __name__ == "__main__":
    main()
