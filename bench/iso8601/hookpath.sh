#!/bin/sh
# The ISO 8601 change on whole commands: instructions (callgrind) of a baseline hookctl and this one,
# same inputs, side by side. `hookctl events --json` over a 10,000-event log parses and formats every
# event's time; `hookctl notify` (Claude Stop, one file sink, no network) is the hook path.
# Usage: BASELINE=/path/to/main/hookctl [BIN=.build/release/hookctl] bench/iso8601/hookpath.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$here/../../.build/release/hookctl}
: "${BASELINE:?BASELINE=<the baseline hookctl binary>}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME COLUMNS TMUX TMUX_PANE
home=$work/home
mkdir -p "$home/.config/hookctl" "$home/.local/state/hookctl"
python3 "$here/../board/generate.py" --count 10000 --state-dir "$home/.local/state/hookctl" >/dev/null
cat > "$home/.config/hookctl/config.yaml" <<YAML
sinks:
  - name: local
    type: file
    path: $work/pushed.jsonl
YAML
payload='{"session_id":"bench","cwd":"/srv/api","hook_event_name":"Stop","transcript_path":"/nonexistent"}'
printf '%s' "$payload" > "$work/payload.json"
instructions() {  # instructions INPUT COMMAND...: callgrind's total instruction count of one run
  input=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" >/dev/null 2>"$work/cg.err" <"$input" || true
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/cg.err"
}
for name in baseline new; do
  binary=$BASELINE; [ $name = new ] && binary=$BIN
  # Each binary starts from the same copy of the state: the same log, no board yet, no outbox.
  rm -rf "$work/run" && cp -a "$home" "$work/run"
  home_of_run=$work/run
  HOME=$home_of_run "$binary" status --json >/dev/null   # the board, built once from the log
  events=$(HOME=$home_of_run instructions /dev/null "$binary" events --json)
  notify=$(HOME=$home_of_run SSHIDO_SESSION=1 instructions "$work/payload.json" "$binary" notify --agent claude)
  echo "$name events=$events notify=$notify"
done | tee "$work/counts"
python3 - "$work/counts" <<'PY'
import sys
rows = {line.split()[0]: dict(f.split("=") for f in line.split()[1:]) for line in open(sys.argv[1])}
for key in ("events", "notify"):
    old, new = int(rows["baseline"][key]), int(rows["new"][key])
    print(f"{key}: baseline {old/1e6:.2f} M, this {new/1e6:.2f} M instructions, ratio {new/old:.4f}")
PY
