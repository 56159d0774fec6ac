#!/usr/bin/env bash
# Benchmark: `hookctl peek` against a bare `tmux capture-pane -p` of the same pane, and `hookctl reply`
# against a bare `tmux send-keys`, side by side (interleaved runs), with 1 and with 200 agents on the
# board. The agent is the tests' stand-in (Tests/Fixtures/standin_agent.py) in a pane of a private tmux
# server; it called hookctl as its hook, so the board holds its processes and no extra tmux call is
# needed to check them. Targets: at most 1.5x each.
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
  HOME=$home python3 - "$hookctl" "$sock" "$pane" "claude:$name" "$runs" <<'PY'
import os, statistics, sys
sys.path.insert(0, os.path.join(os.getcwd(), "bench", "lib"))
from timing import measure, report
hookctl, sock, pane, key, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
env = dict(os.environ)
pairs = [
    ("peek", [hookctl, "peek", key, "--lines", "40"], "tmux capture-pane -p", ["tmux", "-S", sock, "capture-pane", "-p", "-J", "-t", pane, "-S", "-40"]),
    ("reply --key Tab", [hookctl, "reply", key, "--key", "Tab"], "tmux send-keys Tab", ["tmux", "-S", sock, "send-keys", "-t", pane, "Tab"]),
    ("reply TEXT --no-enter", [hookctl, "reply", key, "x", "--no-enter"], "tmux send-keys -l", ["tmux", "-S", sock, "send-keys", "-t", pane, "-l", "x"]),
]
# hookctl's own start (`--version`) runs beside each pair: what is left of `ours` after it and the bare
# tmux call is what peek/reply add themselves (board, target, process checks, recording the reply).
for name, ours, base_name, base in pairs:
    samples = measure({name: ours, base_name: base, "hookctl --version": [hookctl, "--version"]}, runs=runs, warmup=10, env=env)
    medians = report(samples, [base_name])
    added = medians[name] - medians[base_name] - medians["hookctl --version"]
    print(f"  ratio {name} / {base_name}: {medians[name] / medians[base_name]:.2f}x; "
          f"beyond hookctl's start and the tmux call: {added * 1000:.2f} ms")
PY
done
