#!/usr/bin/env bash
# What a careful user writes without hookctl to read or answer an agent's pane: check that the pane
# still runs the process recorded for the agent (pid and start time, against pid reuse), then make the
# one tmux call. The baseline `run.sh` compares `hookctl peek` and `hookctl reply --key` with.
#
#   careful.sh SOCKET PANE PID START peek            capture-pane of the screen and 40 lines of history
#   careful.sh SOCKET PANE PID START key KEY         send-keys KEY
set -euo pipefail
socket=$1 pane=$2 pid=$3 start=$4 action=$5
now=$(tmux -S "$socket" display-message -p -t "$pane" '#{pane_pid}')
[[ $now == "$pid" ]] || { echo "careful.sh: $pane now runs pid $now, not $pid" >&2; exit 69; }
read -r stat < "/proc/$now/stat"
fields=(${stat##*) })          # after "pid (comm) ": field 3 (state) is index 0, field 22 (starttime) index 19
[[ ${fields[19]} == "$start" ]] || { echo "careful.sh: pid $now was started again" >&2; exit 69; }
case $action in
  peek) exec tmux -S "$socket" capture-pane -p -J -t "$pane" -S -40 ;;
  key)  exec tmux -S "$socket" send-keys -t "$pane" "$6" ;;
esac
