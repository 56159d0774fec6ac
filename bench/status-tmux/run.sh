#!/usr/bin/env bash
# Benchmark: `hookctl status --format tmux` (the tmux status-line segment, run by tmux every few
# seconds) against `hookctl --version`, side by side, with 100,000 events in the log (40 sessions,
# some needing input). The segment reads only the stored board, never the log and never tmux.
# Target: median ratio at most 2x.
#
# Usage: bench/status-tmux/run.sh [RUNS]   (HOOKCTL=/path/to/hookctl skips the release build)
# Needs swift (unless HOOKCTL is set) and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-300}
if [[ -z "${HOOKCTL:-}" ]]; then
  swift build -c release --static-swift-stdlib 2>&1 | tail -1
  HOOKCTL="$(swift build -c release --static-swift-stdlib --show-bin-path)/hookctl"
fi
WORK=$(mktemp -d /tmp/hookctl-bench-status-tmux-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME COLUMNS TMUX TMUX_PANE NO_COLOR
home="$WORK/home"
python3 bench/board/generate.py --count 100000 --state-dir "$home/.local/state/hookctl" >/dev/null
# The first status builds the board from the whole log once; tmux then runs the steady state.
HOME=$home "$HOOKCTL" status --json >/dev/null
echo "binary: $HOOKCTL"
echo "segment: $(HOME=$home "$HOOKCTL" status --format tmux)"
HOME=$home python3 - "$HOOKCTL" "$RUNS" <<'PY'
import os, statistics, sys
sys.path.insert(0, "bench/lib")
from timing import measure, report
binary, runs = sys.argv[1], int(sys.argv[2])
samples = measure({"--version": [binary, "--version"], "status --format tmux": [binary, "status", "--format", "tmux"]},
                  runs=runs, warmup=20, env=dict(os.environ))
medians = report(samples, ["--version"])
print(f"  ratio status --format tmux / --version: {medians['status --format tmux'] / medians['--version']:.2f}x (target <= 2x)")
PY
