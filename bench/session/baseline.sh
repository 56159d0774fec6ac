#!/bin/sh
# Baseline: the script a phone client runs over SSH today to land in its tmux session.
# It finds tmux, marks the server with SSHIDO_SESSION (server-wide, as the app does today),
# checks for the session, creates it detached if missing, turns the mouse on, and prints the target.
# Usage: baseline.sh SOCKET_PATH SESSION_NAME
set -u
sock=$1
name=$2
tmux=$(command -v tmux 2>/dev/null || true)
if [ -z "$tmux" ]; then
  for dir in /usr/local/bin /usr/bin /bin /opt/homebrew/bin /home/linuxbrew/.linuxbrew/bin /snap/bin; do
    if [ -x "$dir/tmux" ]; then tmux=$dir/tmux; break; fi
  done
fi
if [ -z "$tmux" ]; then echo "tmux not found" >&2; exit 69; fi
unset TMUX TMUX_PANE
"$tmux" -S "$sock" setenv -g SSHIDO_SESSION 1 2>/dev/null
if ! "$tmux" -S "$sock" has-session -t "=$name" 2>/dev/null; then
  "$tmux" -S "$sock" new-session -d -s "$name" -e SSHIDO_SESSION=1 || exit 1
fi
"$tmux" -S "$sock" set-option -t "=$name:" mouse on
printf '%s\n' "=$name"
