#!/usr/bin/env bash
# Benchmark for the phone board, two questions, each side by side in one interleaved run:
#  1. `hookctl status` (the 45-column cards and the 80-column table, and --json) at 200 sessions and
#     100,000 events against `hookctl --version`. Target: at most 2x.
#  2. `notify` from a tmux pane (the presence check rides the display-message notify already makes)
#     against the same notify of a baseline build without it (BASELINE=path, default: main's tree
#     built in a temporary directory). Target: at most 1.05x.
#
# Usage: bench/board/phone.sh [RUNS]   (HOOKCTL=/path skips this tree's release build;
#        BASELINE=/path/hookctl skips building main)   Needs swift, python3, tmux.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-200}
if [[ -z "${HOOKCTL:-}" ]]; then
  swift build -c release --static-swift-stdlib 2>&1 | tail -1
  HOOKCTL="$(swift build -c release --static-swift-stdlib --show-bin-path)/hookctl"
fi
WORK=$(mktemp -d /tmp/hookctl-bench-phone-XXXXXX)
SOCKET="$WORK/tmux.sock"
cleanup() { tmux -S "$SOCKET" kill-server 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME COLUMNS TMUX TMUX_PANE NO_COLOR
export LANG=C.UTF-8

if [[ -z "${BASELINE:-}" ]]; then
  commit=$(git rev-parse main)
  cache="/tmp/hookctl-bench-main-$commit"
  if [[ ! -x "$cache/hookctl" ]]; then
    mkdir -p "$cache/src"
    git archive main | tar -x -C "$cache/src"
    (cd "$cache/src" && swift build -c release --static-swift-stdlib 2>&1 | tail -1)
    cp "$(cd "$cache/src" && swift build -c release --static-swift-stdlib --show-bin-path)/hookctl" "$cache/hookctl"
  fi
  BASELINE="$cache/hookctl"
fi
echo "binary: $HOOKCTL"
echo "baseline: $BASELINE"
# Both run from the same file system (a copy in the work directory): where a binary lies changes its
# start-up time (a copy under /tmp started 10% faster than the same file in the build tree here).
cp "$HOOKCTL" "$WORK/hookctl-this"
cp "$BASELINE" "$WORK/hookctl-baseline"
HOOKCTL="$WORK/hookctl-this"
BASELINE="$WORK/hookctl-baseline"

# 1. status at 200 sessions, 100,000 events (the first status builds the board once).
home="$WORK/status"
python3 bench/board/generate.py --count 100000 --sessions 200 --state-dir "$home/.local/state/hookctl" >/dev/null
HOME=$home "$HOOKCTL" status --json >/dev/null
echo "board: $(HOME=$home "$HOOKCTL" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["agents"]))') sessions"

# 2. notify in a detached tmux session's pane, a file sink, every event pushed (repeats off).
tmux -f /dev/null -S "$SOCKET" new-session -d -s bench -x 80 -y 24
pane=$(tmux -S "$SOCKET" display-message -p -t '=bench:' '#{pane_id}')
pid=$(tmux -S "$SOCKET" display-message -p '#{pid}')
notify_home="$WORK/notify"
mkdir -p "$notify_home/.config/hookctl"
cat > "$notify_home/.config/hookctl/config.yaml" <<YAML
version: 1
defaults:
  quiet: {repeats: off}
sinks:
  - {name: log, type: file, path: ~/pushes.jsonl}
YAML
printf '{"session_id":"bench","cwd":"/tmp","hook_event_name":"Stop","last_assistant_message":"done"}' > "$WORK/stop.json"

python3 - "$HOOKCTL" "$BASELINE" "$RUNS" "$home" "$notify_home" "$SOCKET,$pid,0" "$pane" "$WORK/stop.json" <<'PY'
import os, sys
sys.path.insert(0, "bench/lib")
from timing import measure, report
binary, baseline, runs, home, notify_home, tmux_env, pane, payload = sys.argv[1:9]
runs = int(runs)
env = dict(os.environ, HOME=home)
print("status, 200 sessions, 100,000 events:")
samples = measure({"--version": [binary, "--version"],
                   "baseline status --width 45": [baseline, "status", "--width", "45"],
                   "status --width 45": [binary, "status", "--width", "45"],
                   "status --width 80": [binary, "status", "--width", "80"],
                   "status --json": [binary, "status", "--json"]}, runs=runs, warmup=20, env=env)
medians = report(samples, ["--version"])
for name in ["baseline status --width 45", "status --width 45", "status --width 80", "status --json"]:
    print(f"  ratio {name} / --version: {medians[name] / medians['--version']:.2f}x (target <= 2x)")

env = dict(os.environ, HOME=notify_home, TMUX=tmux_env, TMUX_PANE=pane, SSHIDO_SESSION="1", HOOKCTL_NO_BACKGROUND="1")
print("notify from a tmux pane (detached: pushed to a file sink):")
samples = measure({"baseline notify": [baseline, "notify", "--agent", "claude"],
                   "this notify": [binary, "notify", "--agent", "claude"]},
                  runs=runs, warmup=10, stdin_file=payload, env=env)
medians = report(samples, ["baseline notify"])
print(f"  ratio this / baseline: {medians['this notify'] / medians['baseline notify']:.3f}x (target <= 1.05x)")
PY
