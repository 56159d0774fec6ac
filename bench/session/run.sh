#!/usr/bin/env bash
# Measures `hookctl session ensure` for an existing session against baseline.sh (the phone's
# script today), side by side, with 1 and with 200 sessions on a private tmux server.
# Usage: bench/session/run.sh [RUNS]   (needs tmux and hyperfine; builds hookctl in release mode)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-200}

swift build -c release --static-swift-stdlib >/dev/null
hookctl=$PWD/.build/release/hookctl
baseline=$PWD/bench/session/baseline.sh

work=$(mktemp -d /tmp/hookctl-bench-XXXXXX)
sock=$work/sock
export HOME=$work XDG_STATE_HOME=$work/state TMUX_TMPDIR=$work
unset TMUX TMUX_PANE
tmux_cmd=(tmux -f /dev/null -S "$sock")
cleanup() { "${tmux_cmd[@]}" kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

name=sshido-9B95BD2A
uuid=9b95bd2a-0c4e-4f6b-8e0a-2d1c3b4a5f60
# An empty C program with hookctl's C link set, to show what start-up costs before any Swift runs.
printf 'int main(void) { return 0; }\n' > "$work/empty.c"
cc -O2 "$work/empty.c" -o "$work/linked" -Wl,--no-as-needed -lcurl -lcrypto -lyaml

# The session under test exists before measuring (both tools then only check and report it).
"$hookctl" session ensure -S "$sock" --id "$uuid" --json > "$work/ensure.json"
"$baseline" "$sock" "$name" > /dev/null
read -r sid created token < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["session_id"], d["created"], d["token"])' "$work/ensure.json")

# hyperfine runs each command's runs back to back; on a shared machine the load drifts, so the runs
# are split into rounds that alternate the commands, and the medians are taken over all rounds.
rounds=20
measure() {
  local label=$1 round
  for round in $(seq 1 "$rounds"); do
    hyperfine -N --warmup 3 --runs $(( (runs + rounds - 1) / rounds )) --export-json "$work/$label-$round.json" \
      -n "baseline.sh" "/bin/sh $baseline $sock $name" \
      -n "baseline.sh (bash)" "/bin/bash $baseline $sock $name" \
      -n "hookctl --version" "$hookctl --version" \
      -n "tmux probe alone" "tmux -S $sock display-message -p -t =$name: #{session_id}" \
      -n "C linked with curl" "$work/linked" \
      -n "hookctl --name" "$hookctl session ensure -S $sock --name $name" \
      -n "hookctl --id+stored" "$hookctl session ensure -S $sock --id $uuid --session-id $sid --created $created --token $token --json" \
      >&2
  done
  python3 - "$label" "$work" "$rounds" <<'PY'
import json, statistics, sys
label, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = {}
for r in range(1, rounds + 1):
    for result in json.load(open(f"{work}/{label}-{r}.json"))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
med = {name: statistics.median(values) * 1000 for name, values in times.items()}
base = med["baseline.sh"]
print(f"{label} ({len(times['baseline.sh'])} runs each):")
notes = {
    "baseline.sh": "the baseline, run by /bin/sh (dash)",
    "baseline.sh (bash)": "the same script run by bash, the usual login shell over SSH",
    "hookctl --name": "hookctl session ensure --name NAME",
    "hookctl --id+stored": "hookctl session ensure --id UUID --session-id --created --token --json",
    "hookctl --version": "hookctl start-up alone, no tmux call",
    "tmux probe alone": "the one tmux round trip hookctl makes, without hookctl",
    "C linked with curl": "an empty C program linked with libcurl, libcrypto, libyaml (what start-up would cost if hookctl linked libcurl)",
}
for name in notes:
    note = "   " + notes[name]
    print(f"  {name:22s} median {med[name]:7.3f} ms   {med[name] / base:5.2f}x{note}")
PY
}

results=()
results+=("$(measure "1-session")")
# 199 more sessions, created in one tmux invocation (each pane runs a sleeping process).
fill=()
for i in $(seq -w 1 199); do fill+=(new-session -d -s "filler-$i" "sleep 86400" \;); done
"${tmux_cmd[@]}" "${fill[@]}"
count=$("${tmux_cmd[@]}" list-sessions | wc -l)
[ "$count" -eq 200 ] || { echo "expected 200 sessions, found $count" >&2; exit 1; }
results+=("$(measure "200-sessions")")

echo
echo "Median wall time over $rounds alternating rounds (ratio = hookctl / baseline; target <= 1.0x):"
printf '%s\n' "${results[@]}"
