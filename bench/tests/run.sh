#!/usr/bin/env bash
# The Swift test suite's wall time, one build against another, run back to back in turns.
#
#   bench/tests/run.sh BASELINE_DIR CURRENT_DIR [ROUNDS]
#
# Each DIR holds a copy of a build's `hookctl` and `hookctlPackageTests.xctest` (copied out of
# .build/x86_64-unknown-linux-gnu/debug, so later builds cannot change them). Every round runs the
# baseline's whole Swift test suite, then the current one's, from this source tree (the fixtures);
# the ratio of each round (current / baseline) is printed, then the ratio of the sums. On a machine
# others use, run it twice and read the range. FILTER=regex limits both runs to the same tests
# (e.g. only the tests that exist in both). MODE=together starts both suites at the same moment in
# each round (the first one started alternates), so a load that comes and goes meets both alike;
# the default runs them one after the other.
set -euo pipefail
baseline=${1:?BASELINE_DIR}
current=${2:?CURRENT_DIR}
rounds=${3:-2}
cd "$(dirname "$0")/../.."
filter=()
[ -n "${FILTER:-}" ] && filter=(--filter "$FILTER")
run() {
    local dir=$1 log=$2 start end status
    start=$(date +%s.%N)
    status=0
    "$dir/hookctlPackageTests.xctest" --testing-library swift-testing "${filter[@]}" >"$log" 2>&1 || status=$?
    end=$(date +%s.%N)
    echo "$end - $start" | bc
    [ "$status" = 0 ] || echo "  (exit $status: $(grep -c 'recorded an issue' "$log") issues, see $log)" >&2
}
total_base=0 total_current=0
for round in $(seq 1 "$rounds"); do
    if [ "${MODE:-}" = together ]; then
        if [ $((round % 2)) = 1 ]; then
            run "$baseline" "/tmp/bench-tests-baseline-$round.log" >/tmp/bench-tests-baseline.time & first=$!
            run "$current" "/tmp/bench-tests-current-$round.log" >/tmp/bench-tests-current.time
        else
            run "$current" "/tmp/bench-tests-current-$round.log" >/tmp/bench-tests-current.time & first=$!
            run "$baseline" "/tmp/bench-tests-baseline-$round.log" >/tmp/bench-tests-baseline.time
        fi
        wait "$first" || true
        base=$(cat /tmp/bench-tests-baseline.time)
        now=$(cat /tmp/bench-tests-current.time)
    else
        base=$(run "$baseline" "/tmp/bench-tests-baseline-$round.log")
        now=$(run "$current" "/tmp/bench-tests-current-$round.log")
    fi
    printf 'round %d: baseline %.1f s, current %.1f s, ratio %.3f (load %s)\n' "$round" "$base" "$now" \
        "$(echo "$now / $base" | bc -l)" "$(cut -d' ' -f1-3 /proc/loadavg)"
    total_base=$(echo "$total_base + $base" | bc)
    total_current=$(echo "$total_current + $now" | bc)
done
printf 'all rounds: baseline %.1f s, current %.1f s, ratio %.3f\n' "$total_base" "$total_current" \
    "$(echo "$total_current / $total_base" | bc -l)"
