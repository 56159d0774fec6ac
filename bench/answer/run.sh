#!/usr/bin/env bash
# Benchmark: `hookctl peek` and `hookctl reply --key` against what a careful user would write without
# hookctl (bench/answer/careful.sh: read the pane's pid with `tmux display-message`, its start time in
# /proc, compare them with the recorded ones, then the one `capture-pane` / `send-keys`), side by side
# (interleaved runs), with 1 and with 200 agents on the board; the bare tmux call and `hookctl
# --version` run beside them for reference. The agent is the tests' stand-in
# (Tests/Fixtures/standin_agent.py) in a pane of a private tmux server; it called hookctl as its hook,
# so the board holds its processes. Target: at most 0.8x the careful script, each.
#
# Usage: bench/answer/run.sh [RUNS]   (default 200; needs swift, tmux, python3)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-200}

[[ -n "${NO_BUILD:-}" ]] || swift build -c release --static-swift-stdlib 2>&1 | tail -1
hookctl="$(swift build -c release --static-swift-stdlib --show-bin-path)/hookctl"
work=$(mktemp -d /tmp/hookctl-bench-answer-XXXXXX)
cleanup() { for s in "$work"/tmux-*.sock; do tmux -S "$s" kill-server 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
unset TMUX TMUX_PANE XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME COLUMNS
export PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8

for agents in 1 200; do
  home=$work/home-$agents
  mkdir -p "$home"
  if [[ $agents -gt 1 ]]; then
    # The other agents: sessions in panes of another (absent) tmux server, as a busy host has them.
    panes=$(python3 -c "print(','.join('%%%d' % (1000 + i) for i in range($agents - 1)))")
    python3 bench/board/generate.py --count $((agents * 20)) --sessions $((agents - 1)) \
      --state-dir "$home/.local/state/hookctl" --tmux-socket "$work/other.sock" --panes "$panes" >/dev/null
  fi
  name=bench-$agents
  cmd="python3 $PWD/Tests/Fixtures/standin_agent.py --record $work/record-$agents --hookctl $hookctl --session $name --mode input; exec sleep 3600"
  # One tmux server per scenario: a pane takes its HOME from the server's environment.
  sock=$work/tmux-$agents.sock
  pane=$(HOME=$home tmux -f /dev/null -S "$sock" new-session -d -P -F '#{pane_id}' -s bench -x 100 -y 40 "sh -c '$cmd'")
  for _ in $(seq 100); do [[ -e $work/record-$agents ]] && break; sleep 0.05; done
  # Some screen content to capture.
  HOME=$home "$hookctl" reply "claude:$name" "$(seq -s ' ' 1 400)" --no-enter >/dev/null 2>&1
  count=$(HOME=$home "$hookctl" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["agents"]))')
  echo "== $count agent(s) on the board; pane $pane"
    panepid=$(tmux -S "$sock" display-message -p -t "$pane" '#{pane_pid}')
  panestart=$(python3 -c "import sys; print(open('/proc/%s/stat' % sys.argv[1]).read().rsplit(') ', 1)[1].split()[19])" "$panepid")
  HOME=$home python3 - "$hookctl" "$sock" "$pane" "claude:$name" "$runs" "$panepid" "$panestart" <<'PY'
import os, statistics, sys
sys.path.insert(0, os.path.join(os.getcwd(), "bench", "lib"))
from timing import measure, report
hookctl, sock, pane, key, runs, pid, start = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6], sys.argv[7]
env = dict(os.environ)
careful = [os.path.join(os.getcwd(), "bench", "answer", "careful.sh"), sock, pane, pid, start]
pairs = [
    ("peek", [hookctl, "peek", key, "--lines", "40"], "careful.sh peek", careful + ["peek"],
     "tmux capture-pane -p", ["tmux", "-S", sock, "capture-pane", "-p", "-J", "-t", pane, "-S", "-40"]),
    ("reply --key Tab", [hookctl, "reply", key, "--key", "Tab"], "careful.sh key Tab", careful + ["key", "Tab"],
     "tmux send-keys Tab", ["tmux", "-S", sock, "send-keys", "-t", pane, "Tab"]),
]
for name, ours, base_name, base, bare_name, bare in pairs:
    samples = measure({name: ours, base_name: base, bare_name: bare, "hookctl --version": [hookctl, "--version"]},
                      runs=runs, warmup=10, env=env)
    medians = report(samples, [base_name])
    print(f"  ratio {name} / {base_name}: {medians[name] / medians[base_name]:.2f}x "
          f"(target <= 0.8x); / {bare_name}: {medians[name] / medians[bare_name]:.2f}x")
PY
done
