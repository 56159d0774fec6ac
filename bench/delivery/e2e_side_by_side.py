#!/usr/bin/env python3
"""The delivery bench's `e2e` measurement over plain HTTP (hook start -> the relay on 127.0.0.1 has the request,
the sender cold: none running, and warm) for two binaries at once, their runs interleaved in one shuffled loop
so machine noise hits both alike, beside a bare `curl` POST of the same body; medians.
Run: python3 bench/delivery/e2e_side_by_side.py BEFORE_BINARY AFTER_BINARY   (RUNS=… rounds, default 20)
"""
import json, os, random, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from bench import make_home, env_for, payload, receiver, stop_senders, median, e2e_once, TOKEN
import loopback

binaries = {"before": sys.argv[1], "after": sys.argv[2]}
RUNS = int(os.environ.get("RUNS", "20"))
work = tempfile.mkdtemp(prefix="hookctl-bench-e2e-side-")
relay, port, log = receiver(work, "relay")
url = f"http://127.0.0.1:{port}/n/{TOKEN}"
homes = {b: make_home(work, b, url) for b in binaries}
body = os.path.join(work, "body.json")
with open(body, "w") as f:
    json.dump({"title": "Claude Code finished · proj", "body": "All tests pass. Done.", "priority": "normal",
               "sessionRef": "c2080807", "hostRef": "host"}, f)
curl = ["curl", "-s", "-o", "/dev/null", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", f"@{body}", url]
times = {"curl": []}
times.update({(b, mode): [] for b in binaries for mode in ("cold", "warm")})
random.seed(42)
for round_ in range(RUNS + 1):
    # Each binary's cold run comes right before its warm one (the warm run finds the sender the cold one started);
    # the binaries and curl take turns in a shuffled order.
    order = ["curl"] + list(binaries)
    random.shuffle(order)
    for who in order:
        if who == "curl":
            took = {"curl": e2e_once(curl, env_for(homes["before"]), None, log)}
        else:
            argv, env = [binaries[who], "notify", "--agent", "claude"], env_for(homes[who])
            stop_senders(homes[who])
            took = {(who, "cold"): e2e_once(argv, env, payload(text=f"c{round_}"), log),
                    (who, "warm"): e2e_once(argv, env, payload(text=f"w{round_}"), log)}
        if round_ >= 1:
            for key, value in took.items():
                times[key].append(value)
for home in homes.values():
    stop_senders(home)
loopback.clean_up([relay], work)
base = median(times["curl"])
print(f"end to end over http://127.0.0.1, hook start -> the relay has the request, median of {RUNS}, interleaved:")
print(f"  bare curl            {base * 1000:7.2f} ms")
for mode in ("cold", "warm"):
    for b in binaries:
        value = median(times[(b, mode)])
        print(f"  {b:<7} sender {mode:<5} {value * 1000:7.2f} ms   {value / base:5.2f}x curl")
    ratio = median(times[("after", mode)]) / median(times[("before", mode)])
    print(f"  after / before ({mode}): {ratio:5.2f}x")
