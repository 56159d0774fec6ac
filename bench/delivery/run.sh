#!/usr/bin/env bash
# Builds the release binary and runs the delivery benchmark (see bench.py for what it measures).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v flock >/dev/null || { echo "bench: flock (util-linux) is needed" >&2; exit 69; }
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -s >/dev/null
if [ "${1:-}" = registered ]; then exec python3 bench/delivery/registered_command.py; fi
if [ "${1:-}" = floor ]; then exec python3 bench/delivery/hook_floor.py .build/release/hookctl; fi
exec python3 bench/delivery/bench.py "$@"
