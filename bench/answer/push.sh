#!/usr/bin/env bash
# Benchmark: answering from the push. Two stand-in agents (Tests/Fixtures/standin_agent.py, menu mode)
# wait on the same kind of question in panes of a private tmux server; the loopback ntfy stand-in
# (Tests/Fixtures/ntfy_server.py) holds the push with its action buttons, and the answer listener
# (`hookctl outbox listen`) follows the reply topic, warm. Each round, at the same moment: the
# action's body is POSTed to the reply topic (what the phone does on a tap) for agent A, and a bare
# `hookctl reply KEY --choice 2` is started for agent B; each is timed until its key arrives in its
# pane (the agent's record file). Rounds alternate which agent gets which path. Target: tap / reply
# <= 1.0x. Then the listener's idle cost: its CPU time (utime + stime from /proc) over 60 s with the
# stream open (ntfy keepalives every 10 s), as a share of one core. Target <= 1 %.
#
# Usage: bench/answer/push.sh [ROUNDS] [IDLE_SECONDS]   (default 15 and 60; needs swift, tmux, python3)
# NO_BUILD=1 reuses the last build; BUILD=debug uses the debug build.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-15}
idle=${2:-60}
if [[ "${BUILD:-release}" == debug ]]; then
  [[ -n "${NO_BUILD:-}" ]] || swift build 2>&1 | tail -1
  hookctl="$(swift build --show-bin-path)/hookctl"
else
  [[ -n "${NO_BUILD:-}" ]] || swift build -c release --static-swift-stdlib 2>&1 | tail -1
  hookctl="$(swift build -c release --static-swift-stdlib --show-bin-path)/hookctl"
fi
work=$(mktemp -d /tmp/hookctl-bench-push-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  tmux -S "$work/tmux.sock" kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
unset TMUX TMUX_PANE XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME COLUMNS
export PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME=$work/home HOOKCTL_NO_BACKGROUND=1
mkdir -p "$HOME/.config/hookctl"

python3 -S Tests/Fixtures/ntfy_server.py --log "$work/ntfy.jsonl" --keepalive 10 --lifetime 3600 > "$work/ntfy.port" &
pids+=($!)
for _ in $(seq 100); do [[ -s $work/ntfy.port ]] && break; sleep 0.05; done
port=$(cat "$work/ntfy.port")
cat > "$HOME/.config/hookctl/config.yaml" <<EOF
version: 1
sinks:
  - name: phone
    type: ntfy
    url: http://127.0.0.1:$port/bench_push
    reply_topic: bench_replies
EOF
tmux -f /dev/null -S "$work/tmux.sock" new-session -d -s bench -x 100 -y 40 "sleep 3600"

HOOKCTL="$hookctl" WORK="$work" PORT="$port" ROUNDS="$rounds" IDLE="$idle" python3 - <<'PY'
import json, os, statistics, subprocess, sys, time, urllib.request
hookctl, work, port = os.environ["HOOKCTL"], os.environ["WORK"], int(os.environ["PORT"])
rounds, idle = int(os.environ["ROUNDS"]), float(os.environ["IDLE"])
sock = work + "/tmux.sock"
base = "http://127.0.0.1:%d" % port

def tmux(*args):
    return subprocess.run(["tmux", "-S", sock] + list(args), capture_output=True, text=True, check=True).stdout.strip()

def start_agent(name):
    record = "%s/record-%s" % (work, name)
    cmd = ("python3 -S %s/Tests/Fixtures/standin_agent.py --record %s --hookctl %s --session %s; exec sleep 3600"
           % (os.getcwd(), record, hookctl, name))
    pane = tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=bench:", "sh -c '%s'" % cmd)
    for _ in range(300):
        if os.path.exists(record):
            return record
        time.sleep(0.02)
    raise SystemExit("the stand-in agent %s did not start" % name)

def wait_byte(record, deadline):
    while time.perf_counter() < deadline:
        if os.path.getsize(record) > 0:
            return time.perf_counter()
        time.sleep(0.0005)
    raise SystemExit("no key arrived in %s" % record)

def pushes():
    if not os.path.exists(work + "/ntfy.jsonl"):
        return []
    with open(work + "/ntfy.jsonl") as f:
        lines = [json.loads(l) for l in f if l.strip()]
    return [json.loads(l["body"]) for l in lines if l.get("method") == "POST" and l.get("path") == "/"]

listener = None
tap_times, reply_times = [], []
try:
    for index in range(rounds + 2):
        a, b = "tap-%d" % index, "cli-%d" % index
        before = len(pushes())
        record_a, record_b = start_agent(a), start_agent(b)
        subprocess.run([hookctl, "outbox", "flush"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        # The push of agent A, by its sequence id (claude-<session>): its SQLite button (option 2).
        bodies = {}
        for p in pushes()[before:]:
            for act in p.get("actions", []):
                if act.get("label") == "SQLite":
                    bodies.setdefault(p.get("sequence_id", ""), act["body"])
        body = next((v for k, v in bodies.items() if a in k), None)
        if body is None:
            raise SystemExit("no push with actions for %s: %s" % (a, pushes()[before:]))
        if listener is None:
            # Started once the first push has opened answers (as the sender starts it), warm from then on.
            listener = subprocess.Popen([hookctl, "outbox", "listen"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Both dialogs have stood long enough that reply's settle wait (0.8 s) is over for both.
        time.sleep(1.0)
        request = urllib.request.Request(base + "/bench_replies", data=body.encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        start = time.perf_counter()
        urllib.request.urlopen(request, timeout=10).read()
        tapped = time.perf_counter()
        cli = subprocess.Popen([hookctl, "reply", "claude:" + b, "--choice", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # The reply starts right after the POST has been taken: its clock starts when it is started.
        t_tap = wait_byte(record_a, start + 20) - tapped
        t_cli = wait_byte(record_b, tapped + 20) - tapped
        cli.wait(timeout=20)
        if index >= 2:  # two warm-up rounds
            tap_times.append(t_tap)
            reply_times.append(t_cli)
    tap, cli = statistics.median(tap_times), statistics.median(reply_times)
    print("tap to keypress (warm listener)   median %7.1f ms  (n=%d, min %.1f, max %.1f)" % (tap * 1000, len(tap_times), min(tap_times) * 1000, max(tap_times) * 1000))
    print("bare reply --choice, same moment  median %7.1f ms  (n=%d, min %.1f, max %.1f)" % (cli * 1000, len(reply_times), min(reply_times) * 1000, max(reply_times) * 1000))
    print("ratio tap / reply: %.2fx (target <= 1.0x)" % (tap / cli))

    def cpu(pid):
        fields = open("/proc/%d/stat" % pid).read().rsplit(") ", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    first, wall = cpu(listener.pid), time.perf_counter()
    time.sleep(idle)
    used, wall = cpu(listener.pid) - first, time.perf_counter() - wall
    print("listener idle: %.3f s CPU over %.1f s wall = %.3f %% of a core (target <= 1 %%)" % (used, wall, 100 * used / wall))
finally:
    if listener:
        listener.terminate()
        listener.wait(timeout=30)
PY
