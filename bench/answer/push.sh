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
# HTTPS=1 serves ntfy over TLS (a test CA from bench/lib/loopback.py, trusted through CURL_CA_BUNDLE), as
# ntfy.sh is reached, and the taps are posted over https too.
#
# Usage: bench/answer/push.sh [ROUNDS] [IDLE_SECONDS]   (default 15 and 60; needs swift, tmux, python3; openssl for HTTPS=1)
# NO_BUILD=1 reuses the last build; BUILD=debug uses the debug build; KEEP=1 leaves the work folder (listener.log, the server log).
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
  [[ -n "${KEEP:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT
unset TMUX TMUX_PANE XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME COLUMNS
export PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME=$work/home HOOKCTL_NO_BACKGROUND=1
mkdir -p "$HOME/.config/hookctl"

tls=()
scheme=http
if [[ -n "${HTTPS:-}" ]]; then
  read -r ca cert key < <(python3 -c 'import sys; sys.path.insert(0, "bench/lib"); import loopback; print(*loopback.make_test_ca(sys.argv[1]))' "$work/ca")
  export CURL_CA_BUNDLE=$ca
  tls=(--tls "$cert" "$key")
  scheme=https
fi
python3 -S Tests/Fixtures/ntfy_server.py --log "$work/ntfy.jsonl" --keepalive 10 --lifetime 3600 "${tls[@]}" > "$work/ntfy.port" &
pids+=($!)
for _ in $(seq 100); do [[ -s $work/ntfy.port ]] && break; sleep 0.05; done
port=$(head -1 "$work/ntfy.port")
cat > "$HOME/.config/hookctl/config.yaml" <<EOF
version: 1
sinks:
  - name: phone
    type: ntfy
    url: $scheme://127.0.0.1:$port/bench_push
    reply_topic: bench_replies
EOF
echo "ntfy over $scheme; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
tmux -f /dev/null -S "$work/tmux.sock" new-session -d -s bench -x 100 -y 40 "sleep 3600"

HOOKCTL="$hookctl" WORK="$work" PORT="$port" SCHEME="$scheme" ROUNDS="$rounds" IDLE="$idle" python3 - <<'PY'
import json, os, ssl, statistics, subprocess, sys, time, urllib.request
hookctl, work, port = os.environ["HOOKCTL"], os.environ["WORK"], int(os.environ["PORT"])
rounds, idle = int(os.environ["ROUNDS"]), float(os.environ["IDLE"])
sock = work + "/tmux.sock"
base = "%s://127.0.0.1:%d" % (os.environ["SCHEME"], port)
# The phone's post over https trusts the test CA, as hookctl does.
context = ssl.create_default_context(cafile=os.environ["CURL_CA_BUNDLE"]) if os.environ["SCHEME"] == "https" else None

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

def wait_bytes(records, deadline):
    """When each record got its first byte, watching all of them at once (waiting for one, then the
    other, would time the second no earlier than the first)."""
    seen = {}
    while len(seen) < len(records) and time.perf_counter() < deadline:
        now = time.perf_counter()
        for record in records:
            if record not in seen and os.path.getsize(record) > 0:
                seen[record] = now
        time.sleep(0.0005)
    if len(seen) < len(records):
        raise SystemExit("no key arrived in %s" % [r for r in records if r not in seen])
    return [seen[record] for record in records]

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
        urllib.request.urlopen(request, timeout=10, context=context).read()
        tapped = time.perf_counter()
        cli = subprocess.Popen([hookctl, "reply", "claude:" + b, "--choice", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # The reply starts right after the POST has been taken: its clock starts when it is started.
        at_tap, at_cli = wait_bytes([record_a, record_b], tapped + 20)
        t_tap, t_cli = at_tap - tapped, at_cli - tapped
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
    gets = [l for l in open(work + "/ntfy.jsonl") if '"GET"' in l]
    print("subscribe requests over the whole run: %d (%s)" % (len(gets), "polled" if any("poll=1" in l for l in gets) else "streamed"))
    print("listener idle: %.3f s CPU over %.1f s wall = %.3f %% of a core (target <= 1 %%)" % (used, wall, 100 * used / wall))
finally:
    if listener:
        listener.terminate()
        listener.wait(timeout=30)
PY
