#!/bin/sh
# Fan-out benchmark: one `hookctl notify` to six HTTP sinks (each loopback server answers after 300 ms)
# against the same to one sink, in the same run. Builds the release binary first unless HOOKCTL_BINARY is set.
# Usage: bench/fanout/run.sh [--runs N] [--json]
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${HOOKCTL_BINARY:-}" ]; then
    (cd "$root" && swift build -c release --product hookctl >/dev/null)
    HOOKCTL_BINARY="$root/.build/release/hookctl"
fi
exec python3 "$root/bench/fanout/fanout.py" --binary "$HOOKCTL_BINARY" "$@"
