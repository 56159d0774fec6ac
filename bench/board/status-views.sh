#!/usr/bin/env bash
# `hookctl status` at 200 sessions and 100,000 events, its three views (`--width 45`, `--width 80`,
# `--json`) and `--format tmux`, this build against a baseline build and `--version`, all side by side
# in one interleaved run; then the instructions each takes (callgrind), when valgrind is installed.
# Target (issue 24): each view at most 2x `--version`.
#
# Usage: bench/board/status-views.sh [RUNS]   (HOOKCTL=/path skips this tree's release build;
#        BASELINE=/path/hookctl is required: the build to compare with, e.g. main's)   Needs python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-200}
: "${BASELINE:?set BASELINE to the hookctl to compare with}"
if [[ -z "${HOOKCTL:-}" ]]; then
  swift build -c release --static-swift-stdlib 2>&1 | tail -1
  HOOKCTL="$(swift build -c release --static-swift-stdlib --show-bin-path)/hookctl"
fi
# /var/tmp: /tmp is slow at making files on some machines, and both binaries run from one file system.
WORK=$(mktemp -d /var/tmp/hookctl-bench-status-views-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME COLUMNS TMUX TMUX_PANE NO_COLOR
export LANG=C.UTF-8
cp "$HOOKCTL" "$WORK/hookctl-this"
cp "$BASELINE" "$WORK/hookctl-baseline"
home="$WORK/home"
python3 bench/board/generate.py --count 100000 --sessions 200 --state-dir "$home/.local/state/hookctl" >/dev/null
# The board is built once by the baseline: both then read a board.state the previous release wrote.
HOME=$home "$WORK/hookctl-baseline" status --json >/dev/null
echo "binary: $HOOKCTL"
echo "baseline: $BASELINE"

HOME=$home python3 - "$WORK/hookctl-this" "$WORK/hookctl-baseline" "$RUNS" <<'PY'
import os, sys
sys.path.insert(0, "bench/lib")
from timing import measure, report
this, baseline, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
views = [["--width", "45"], ["--width", "80"], ["--json"], ["--format", "tmux"]]
commands = {"--version": [this, "--version"]}
for view in views:
    commands["baseline status " + " ".join(view)] = [baseline, "status"] + view
    commands["status " + " ".join(view)] = [this, "status"] + view
print("status, 200 sessions, 100,000 events:")
medians = report(measure(commands, runs=runs, warmup=20, env=dict(os.environ)), ["--version"])
for view in views:
    name = " ".join(view)
    print(f"  ratio / --version: baseline {medians['baseline status ' + name] / medians['--version']:.2f}x, "
          f"this {medians['status ' + name] / medians['--version']:.2f}x  (status {name}; target <= 2x)")
PY

if command -v valgrind >/dev/null; then
  echo "instructions (callgrind):"
  count() { HOME=$home valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/Collected/ {print $4}'; }
  echo "  --version: $(count "$WORK/hookctl-this" --version)"
  for view in "--width 45" "--width 80" "--json" "--format tmux"; do
    # shellcheck disable=SC2086
    echo "  status $view: baseline $(count "$WORK/hookctl-baseline" status $view), this $(count "$WORK/hookctl-this" status $view)"
  done
fi
