#!/usr/bin/env bash
# Benchmark: `hookctl status --json` against `hookctl --version`, side by side in one hyperfine run,
# with 10,000 and 100,000 events in the log. The board is kept incrementally, so status must not
# grow with the log: the target is at most 3x the median of --version at both sizes.
#
# Usage: bench/board/run.sh [--runs N per round]  (ROUNDS=5 by default)   (needs swift, hyperfine, python3; tmux for the pane scenario)
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-100}
ROUNDS=${ROUNDS:-5}
if [[ "${1:-}" == "--runs" ]]; then RUNS=$2; fi

swift build -c release --static-swift-stdlib 2>&1 | tail -1
BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)/hookctl"
WORK=$(mktemp -d /tmp/hookctl-bench-board-XXXXXX)
TMUX_SOCKET="$WORK/tmux.sock"
cleanup() { tmux -S "$TMUX_SOCKET" kill-server 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME COLUMNS TMUX TMUX_PANE
SWIFTC=$(command -v swiftc)
export PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8

compare() {  # compare NAME HOME
  local name=$1 home=$2
  # Build the board once (the one-time rebuild from the whole log), then measure the steady state.
  local start end
  start=$(date +%s%N)
  HOME=$home "$BIN" status --json >/dev/null
  end=$(date +%s%N)
  echo "$name: first status (board built from the log once): $(( (end - start) / 1000000 )) ms"
  # Rounds alternate the two commands so load from elsewhere on the machine hits both alike.
  for round in $(seq 1 "$ROUNDS"); do
    HOME=$home hyperfine -N --warmup 20 --runs "$RUNS" --style none \
      --export-json "$WORK/$name-$round.json" \
      -n version "$BIN --version" -n status "$BIN status --json" >/dev/null 2>&1
  done
  python3 - "$name" "$WORK/$name" "$ROUNDS" <<'PY'
import json, statistics, sys
name, prefix, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = {"version": [], "status": []}
per_round = []
for r in range(1, rounds + 1):
    results = {x["command"]: x for x in json.load(open(f"{prefix}-{r}.json"))["results"]}
    for command in times:
        times[command] += results[command]["times"]
    per_round.append(results["status"]["median"] / results["version"]["median"])
v, s = statistics.median(times["version"]), statistics.median(times["status"])
print(f"{name}: median --version {v*1000:.3f} ms, status --json {s*1000:.3f} ms, ratio {s/v:.2f}x"
      f" over {len(times['version'])}+{len(times['status'])} runs; per-round ratios "
      + " ".join(f"{x:.2f}" for x in per_round))
PY
  local board="$home/.local/state/hookctl/board.state"
  echo "$name: board.state $(stat -c %s "$board") bytes, log $(cat "$home"/.local/state/hookctl/events*.jsonl | wc -l) events in $(ls "$home"/.local/state/hookctl/events*.jsonl | wc -l) files"
}

for count in 10000 100000; do
  home="$WORK/home-$count"
  python3 bench/board/generate.py --count "$count" --state-dir "$home/.local/state/hookctl" >/dev/null
  compare "events=$count" "$home"
done

# The same with every session in a live tmux pane: status then also asks tmux once whether the panes exist.
if command -v tmux >/dev/null; then
  tmux -S "$TMUX_SOCKET" -f /dev/null new-session -d -s bench "sleep 3600"
  tmux -S "$TMUX_SOCKET" split-window -d -t bench "sleep 3600"
  panes=$(tmux -S "$TMUX_SOCKET" list-panes -t bench -F '#{pane_id}' | paste -sd,)
  home="$WORK/home-tmux"
  python3 bench/board/generate.py --count 10000 --state-dir "$home/.local/state/hookctl" \
    --tmux-socket "$TMUX_SOCKET" --panes "$panes" >/dev/null
  compare "events=10000,tmux-panes" "$home"
fi

# What notify pays per event: EventLog.append, optimized build, timed in-process (no process start).
# The support files that need no C library (the HTTP and crypto wrappers are not on this path).
support=$(grep -L -E '^(internal |@_implementationOnly )?import C' Sources/HookSupport/Support/*.swift)
# shellcheck disable=SC2086
"$SWIFTC" -O -wmo -module-name BoardAppendBench -package-name hookctl $support Sources/HookCore/Events/Event.swift \
  Sources/HookCore/Board/*.swift bench/board/append/main.swift -o "$WORK/append-bench" 2>&1 | grep -v warning || true
for sessions in 1 40 200; do
  mkdir -p "$WORK/append-$sessions"
  "$WORK/append-bench" 3000 "$sessions" "$WORK/append-$sessions"
done
