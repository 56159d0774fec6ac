#!/usr/bin/env python3
"""Fan-out benchmark: one event to all six HTTP sink types at once versus to a single sink.

Starts six loopback receivers (Tests/Fixtures/receiver.py) that each answer after DELAY seconds, writes
two configs (six sinks: relay, webhook, ntfy, slack, discord, telegram; and the webhook sink alone),
and times `hookctl notify --force --strict` against each, alternating, RUNS times. Every run must
deliver (exit 0) and every receiver must have recorded its request, or the benchmark fails.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
parser = argparse.ArgumentParser()
parser.add_argument("--binary", default=os.path.join(root, ".build", "release", "hookctl"))
parser.add_argument("--runs", type=int, default=7)
parser.add_argument("--delay", type=float, default=0.3)
parser.add_argument("--target", type=float, default=0.450)
parser.add_argument("--json", action="store_true")
args = parser.parse_args()

work = tempfile.mkdtemp(prefix="hookctl-fanout-")
receivers = []
try:
    types = ["relay", "webhook", "ntfy", "slack", "discord", "telegram"]
    ports = {}
    for kind in types:
        log = os.path.join(work, kind + ".jsonl")
        process = subprocess.Popen([sys.executable, os.path.join(root, "Tests", "Fixtures", "receiver.py"), "--log", log,
                                    "--responses", "204:%s" % args.delay, "--lifetime", "300"],
                                   stdout=subprocess.PIPE, text=True)
        receivers.append(process)
        ports[kind] = int(process.stdout.readline())
    base = {kind: "http://127.0.0.1:%d" % port for kind, port in ports.items()}
    sinks = {
        "relay": "type: relay\n    url: %s/n/relaysubscribertoken" % base["relay"],
        "webhook": "type: webhook\n    url: %s/hook\n    secret: whsec_YmVuY2htYXJrLXNpZ25pbmctc2VjcmV0" % base["webhook"],
        "ntfy": "type: ntfy\n    url: %s/bench-topic\n    token: tk_benchmarktoken" % base["ntfy"],
        "slack": "type: slack\n    url: %s/services/T0/B0/benchslack" % base["slack"],
        "discord": "type: discord\n    url: %s/api/webhooks/1/benchdiscord" % base["discord"],
        "telegram": "type: telegram\n    token: 1:benchtelegramtoken\n    chat_id: 42\n    api_url: %s" % base["telegram"],
    }

    def config(name, kinds):
        path = os.path.join(work, name + ".yaml")
        with open(path, "w") as f:
            f.write("version: 1\nsinks:\n")
            for kind in kinds:
                f.write("  - name: %s\n    %s\n" % (kind, sinks[kind]))
        return path

    six = config("six", types)
    one = config("one", ["webhook"])
    home = os.path.join(work, "home")
    os.makedirs(home)
    env = {"HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOOKCTL_NO_BACKGROUND": "1"}

    def counts():
        result = {}
        for kind in types:
            try:
                with open(os.path.join(work, kind + ".jsonl")) as f:
                    result[kind] = sum(1 for _ in f)
            except FileNotFoundError:
                result[kind] = 0
        return result

    def run(path):
        command = [args.binary, "notify", "--force", "--strict", "--config", path, "--agent", "claude",
                   "--event", "needs_input", "--message", "Approve `rm -rf build/`?"]
        start = time.monotonic()
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        elapsed = time.monotonic() - start
        if done.returncode != 0:
            sys.exit("hookctl failed (%d): %s" % (done.returncode, done.stderr))
        return elapsed

    run(one)  # warm the page cache and the receivers
    times = {"six": [], "one": []}
    for _ in range(args.runs):
        before = counts()
        times["six"].append(run(six))
        after = counts()
        missing = [kind for kind in types if after[kind] != before[kind] + 1]
        if missing:
            sys.exit("the six-sink run did not reach: %s" % ", ".join(missing))
        times["one"].append(run(one))

    six_median, one_median = statistics.median(times["six"]), statistics.median(times["one"])
    report = {
        "receiver_delay_ms": args.delay * 1000,
        "runs": args.runs,
        "six_sinks_ms": {"median": round(six_median * 1000, 1), "min": round(min(times["six"]) * 1000, 1),
                         "max": round(max(times["six"]) * 1000, 1)},
        "one_sink_ms": {"median": round(one_median * 1000, 1), "min": round(min(times["one"]) * 1000, 1),
                        "max": round(max(times["one"]) * 1000, 1)},
        "ratio_six_to_one": round(six_median / one_median, 3),
        "target_ms": args.target * 1000,
        "pass": max(times["six"]) < args.target,
    }
    if args.json:
        print(json.dumps(report))
    else:
        print("fan-out: one event to 6 sinks (relay, webhook, ntfy, slack, discord, telegram), each answering after %d ms"
              % (args.delay * 1000))
        print("  six sinks:  median %(median)s ms  (min %(min)s, max %(max)s)" % report["six_sinks_ms"])
        print("  one sink:   median %(median)s ms  (min %(min)s, max %(max)s)" % report["one_sink_ms"])
        print("  ratio six/one: %.3f   target: every six-sink run < %d ms: %s"
              % (report["ratio_six_to_one"], args.target * 1000, "PASS" if report["pass"] else "FAIL"))
    sys.exit(0 if report["pass"] else 1)
finally:
    for process in receivers:
        process.kill()
        process.wait()
    shutil.rmtree(work, ignore_errors=True)
