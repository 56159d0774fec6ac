#!/bin/sh
# notify's instructions (callgrind) for a Claude Code Stop and a Codex Stop, this build against a
# baseline build, same inputs, side by side: the hook path's cost of reading event kinds and display
# names from the manifests (HookFacts) and of Codex's one-push-per-turn claim.
#
# Usage: bench/notify/callgrind.sh [BASE_COMMIT]   (default af912ea, the release before issue 23)
#   BASELINE=/path/to/hookctl   use that binary instead of building BASE_COMMIT
#   BIN=/path/to/hookctl        this build's binary (default: built here, release)
#   RUNS=3                      callgrind runs per binary and payload (the median is reported)
# The baseline is built from `git archive BASE_COMMIT` in a temporary directory, so no worktree changes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
commit=${1:-af912ea}
runs=${RUNS:-3}
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is needed (apt-get install valgrind)" >&2; exit 69; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags="-c release --static-swift-stdlib --disable-local-rpath -Xlinker -s"
if [ -z "${BIN:-}" ]; then
  (cd "$root" && swift build $flags >/dev/null)
  BIN=$root/.build/release/hookctl
fi
if [ -z "${BASELINE:-}" ]; then
  mkdir -p "$work/base"
  (cd "$root" && git archive "$commit") | tar -x -C "$work/base"
  (cd "$work/base" && swift build $flags >/dev/null)
  BASELINE=$work/base/.build/release/hookctl
fi
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_DATA_HOME COLUMNS TMUX TMUX_PANE
printf '%s' '{"session_id":"c2080807","transcript_path":"/nonexistent","cwd":"/srv/api","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"All tests pass. **Done**."}' > "$work/claude.json"
printf '%s' '{"session_id":"th-1","turn_id":"tu-1","transcript_path":null,"cwd":"/srv/api","hook_event_name":"Stop","model":"gpt-5-codex","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"Rename complete."}' > "$work/codex.json"
instructions() {  # instructions HOME INPUT AGENT BINARY: callgrind's total instruction count of one notify
  # The variables are set for valgrind itself: through `env` it would measure env and lose the exec.
  HOME="$1" SSHIDO_SESSION=1 HOOKCTL_NO_BACKGROUND=1 valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
    "$4" notify --agent "$3" <"$2" >/dev/null 2>"$work/cg.err" || true
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/cg.err"
}
for round in $(seq "$runs"); do
  for name in baseline this; do
    binary=$BASELINE; [ "$name" = this ] && binary=$BIN
    for agent in claude codex; do
      # A fresh home each run: same config, empty log, no board, no turn markers.
      home=$work/home-$name-$agent-$round
      mkdir -p "$home/.config/hookctl"
      printf 'sinks:\n  - name: local\n    type: file\n    path: %s\n' "$work/pushed-$name.jsonl" > "$home/.config/hookctl/config.yaml"
      echo "$name $agent $(instructions "$home" "$work/$agent.json" "$agent" "$binary")"
    done
  done
done | tee "$work/counts"
python3 - "$work/counts" "$commit" <<'PY'
import statistics, sys
counts = {}
for line in open(sys.argv[1]):
    name, agent, value = line.split()
    counts.setdefault((name, agent), []).append(int(value))
for agent in ("claude", "codex"):
    old = statistics.median(counts[("baseline", agent)])
    new = statistics.median(counts[("this", agent)])
    print(f"{agent} Stop: {sys.argv[2]} {old/1e6:.2f} M, this {new/1e6:.2f} M instructions, ratio {new/old:.4f}")
PY
