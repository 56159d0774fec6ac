#!/usr/bin/env bash
# Builds the release binary and runs the notify benchmark (see bench.py for what it measures).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v jq >/dev/null || { echo "bench: jq is needed for the baseline script (apt-get install jq)" >&2; exit 69; }
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -s >/dev/null
exec python3 bench/notify/bench.py "$@"
