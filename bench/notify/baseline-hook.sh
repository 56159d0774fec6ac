#!/usr/bin/env bash
# The bash + jq + curl hook script that setups use today (the baseline hookctl notify replaces):
# read the payload, read the URL, map the priority, ask tmux for the session, build the body, POST it.
set -euo pipefail
[ -n "${SSHIDO_SESSION:-}" ] || exit 0
input=$(cat)
url=$(cat "${HOOK_URL_FILE:-$HOME/.config/sshido/notify-url}")
event=$(jq -r '.hook_event_name // "Stop"' <<<"$input")
case "$event" in
  Notification|StopFailure) priority=high ;;
  *) priority=normal ;;
esac
message=$(jq -r '.last_assistant_message // .message // ""' <<<"$input" | head -c 3500)
session=$(tmux display-message -p '#S' 2>/dev/null || true)
host=$(hostname -s)
body=$(jq -n --arg t "Claude Code: $event" --arg b "$message" --arg p "$priority" --arg s "$session" --arg h "$host" \
  '{title: $t, body: $b, priority: $p, sessionRef: $s, hostRef: $h}')
curl -fsS -m 5 -X POST -H 'Content-Type: application/json' -d "$body" "$url" >/dev/null
