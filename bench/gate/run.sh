#!/bin/sh
# Gate-off benchmark: what a hook costs an agent running outside a phone session.
#
# After `hookctl setup` in a throw-away HOME, takes the exact command string registered in Claude
# Code's settings.json and times `sh -c '<that command>'` against `sh -c true`, side by side, with
# SSHIDO_SESSION unset (hyperfine -N: no extra shell around either), in alternating rounds. Target:
# median ratio <= 1.2.
#
#   bench/gate/run.sh [RUNS]          (HOOKCTL=/path/to/hookctl to pick the binary)
#
# Needs hyperfine and python3. hyperfine 1.15 gives the commands /dev/null as stdin; the gated command
# exits in the shell before anything reads stdin, so the payload an agent would pipe in changes nothing.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-300}
hookctl=${HOOKCTL:-}
if [ -z "$hookctl" ]; then
    # The most recently built one (the command string does not depend on it, only the setup that writes it).
    hookctl=$(ls -t "$root/.build/release/hookctl" "$root/.build/debug/hookctl" 2>/dev/null | head -n 1 || true)
fi
[ -n "$hookctl" ] && [ -x "$hookctl" ] || { echo "bench/gate: build hookctl first (swift build), or set HOOKCTL" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench/gate: hyperfine is not installed" >&2; exit 1; }

home=$(mktemp -d /tmp/hookctl-bench-gate-XXXXXX)
trap 'rm -rf "$home"' EXIT INT TERM
mkdir -p "$home/.claude"
echo '{}' > "$home/.claude/settings.json"
env -i HOME="$home" PATH=/usr/bin:/bin "$hookctl" setup --agents claude --notify-url https://push.example.com/n/benchmarktoken0000 >/dev/null

registered=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hooks"]["Stop"]; print([x["command"] for g in h for x in g["hooks"] if "hookctl-hook" in x["command"]][0])' "$home/.claude/settings.json")
# hyperfine -N splits its command line like a shell: single-quote the registered string for it.
quoted=$(printf '%s' "$registered" | sed "s/'/'\\\\''/g")

echo "binary:             $hookctl"
echo "registered command: $registered"
# Side by side: the runs are split into rounds that alternate which command goes first, and the times
# are pooled, so load from other processes on a shared machine hits both commands alike.
rounds=20
per_round=$(( (runs + rounds - 1) / rounds ))
round=0
while [ "$round" -lt "$rounds" ]; do
    if [ $((round % 2)) -eq 0 ]; then set -- "sh -c true" "sh -c '$quoted'"; else set -- "sh -c '$quoted'" "sh -c true"; fi
    env -i HOME="$home" PATH=/usr/bin:/bin hyperfine -N --warmup 5 --runs "$per_round" --export-json "$home/round-$round.json" \
        "$@" >"$home/hyperfine.txt" 2>&1 || { cat "$home/hyperfine.txt"; exit 1; }
    round=$((round + 1))
done
python3 - "$home" "$rounds" <<'PY'
import json, statistics, sys
home, rounds = sys.argv[1], int(sys.argv[2])
times = {"base": [], "hook": []}
for r in range(rounds):
    for result in json.load(open(f"{home}/round-{r}.json"))["results"]:
        times["base" if result["command"] == "sh -c true" else "hook"].extend(result["times"])
def line(label, values):
    return (f"{label} median {statistics.median(values)*1e3:.3f} ms  "
            f"(mean {statistics.mean(values)*1e3:.3f} ± {statistics.stdev(values)*1e3:.3f} ms, {len(values)} runs)")
print(line("sh -c true:         ", times["base"]))
print(line("registered command: ", times["hook"]))
ratio = statistics.median(times["hook"]) / statistics.median(times["base"])
print(f"ratio (median):      {ratio:.3f}x  (target <= 1.2x: {'ok' if ratio <= 1.2 else 'OVER'})")
sys.exit(0 if ratio <= 1.2 else 2)
PY
