# The board across hosts over real sshd servers in Debian roots (sourced by Tests/package/run.sh after
# its deploy tests: it uses that script's roots cache, helpers, client hookctl, keys and ssh options).
#
# Three more roots, each its own sshd on a loopback address with its own host key and hookctl:
#   boxa  127.0.0.3  hookctl deployed, an agent waiting in a tmux pane: status, peek, reply, jump;
#                    then its sshd is stopped mid-test (every sshd process of that root)
#   boxb  127.0.0.4  no hookctl at all
#   boxc  127.0.0.5  hookctl deployed and answering; then its host key changes and sshd restarts:
#                    ssh's own check refuses it (StrictHostKeyChecking=yes, never turned off)
# plus boxh, a user on boxa's sshd whose "hookctl" answers 10 MB: a bad answer on its row only.
# Each host's row says what happened to it; the others stay as they are.

log "the board across hosts: three sshd servers in three more roots"
# The client's runtime folder (its ssh control sockets): short, as a socket path must be.
hosts_runtime=$(mktemp -d /tmp/hk-run.XXXXXX)
client() { env -i PATH=/usr/bin:/bin HOME="$work/client" LC_ALL=C.UTF-8 XDG_RUNTIME_DIR="$hosts_runtime" "$hookctl" "$@"; }
hosts_roots=()
for spec in a:127.0.0.3 b:127.0.0.4 c:127.0.0.5; do
    name=${spec%%:*} address=${spec#*:}
    root=$(new_root "box$name")
    in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        openssh-server libcurl4 libyaml-0-2 tmux >"$work/box$name-apt.log" 2>&1 || { tail "$work/box$name-apt.log"; exit 1; }
    authorize "$root" u1
    start_sshd "$root" "$address" && pass "sshd runs in root box$name on $address:$port" || fail "sshd in box$name did not start"
    hosts_roots+=("$root")
done
boxa_root=${hosts_roots[0]} boxb_root=${hosts_roots[1]} boxc_root=${hosts_roots[2]}
authorize "$boxa_root" u2
# boxh's "hookctl": a 10 MB answer.
mkdir -p "$boxa_root/home/u2/.local/bin"
printf '#!/bin/sh\nhead -c 10485760 /dev/zero | tr "\\\\0" a\n' >"$boxa_root/home/u2/.local/bin/hookctl"
chmod 755 "$boxa_root/home/u2/.local/bin/hookctl"
chown -R --reference="$boxa_root/home/u2" "$boxa_root/home/u2/.local"

client deploy u1@127.0.0.3 u1@127.0.0.5 --agents claude "${ssh_options[@]}" --json >"$work/hosts-deploy.json" 2>&1 &&
    pass "deploy to boxa and boxc" || { fail "deploy to boxa and boxc"; cat "$work/hosts-deploy.json"; }
# Plain host options (--ssh-option OPT pairs from run.sh's list).
host_options=()
for ((i = 1; i < ${#ssh_options[@]}; i += 2)); do host_options+=(--ssh-option "${ssh_options[$i]}"); done
client hosts add boxa u1@127.0.0.3 "${host_options[@]}" >/dev/null && client hosts add boxb u1@127.0.0.4 "${host_options[@]}" >/dev/null &&
    client hosts add boxc u1@127.0.0.5 "${host_options[@]}" >/dev/null && client hosts add boxh u2@127.0.0.3 "${host_options[@]}" >/dev/null &&
    pass "hosts add boxa boxb boxc boxh" || fail "hosts add"
check "hosts list names the four hosts" test "$(client hosts list --json | json_field '[h["name"] for h in d["hosts"]]')" = "['boxa', 'boxb', 'boxc', 'boxh']"
check "a host label with shell syntax is refused" sh -c "! env -i PATH=/usr/bin:/bin HOME='$work/client' '$hookctl' hosts add 'x;touch $work/pwned' h 2>/dev/null && test ! -e '$work/pwned'"
check "StrictHostKeyChecking=no is refused for a host" sh -c "! env -i PATH=/usr/bin:/bin HOME='$work/client' '$hookctl' hosts add boxz h --ssh-option StrictHostKeyChecking=no 2>/dev/null"

# Each host's own agents: boxa waits in a tmux pane (a shell that records its hook, then reads one
# line: the reply), boxc has one finished agent.
payload='{"session_id":"c2080807","cwd":"/srv/api","hook_event_name":"Notification","message":"Proceed? \u001b]52;c;aGk=\u0007"}'
printf '%s\n' "$payload" >"$boxa_root/home/u1/payload"
cat >"$boxa_root/home/u1/agent.sh" <<'EOF'
hookctl notify --force --agent claude <"$HOME/payload"
IFS= read -r line && printf '%s' "$line" >"$HOME/got"
exec sleep 600
EOF
chown --reference="$boxa_root/home/u1" "$boxa_root/home/u1/payload" "$boxa_root/home/u1/agent.sh"
pane=$(as_user "$boxa_root" u1 tmux -f /dev/null new-session -d -P -F '#{pane_id}' -s work -x 80 -y 30 "sh /home/u1/agent.sh")
wait_for 20 test -s "$boxa_root/home/u1/.local/state/hookctl/events.jsonl" && pass "boxa's agent recorded its question (pane $pane)" || fail "boxa's agent did not record"
as_user "$boxc_root" u1 sh -c 'printf %s "{\"session_id\":\"s-c\",\"cwd\":\"/srv/web\",\"hook_event_name\":\"Stop\",\"last_assistant_message\":\"tests pass\"}" | hookctl notify --force --agent claude'

client status --hosts --json >"$work/hosts1.json" 2>"$work/hosts1.err" && pass "status --hosts --json" || { fail "status --hosts --json"; cat "$work/hosts1.err"; }
state_in() { json_field "[h for h in d['hosts'] if h['name'] == '$2'][0]['state']" <"$1"; }
check "boxa answered (its waiting agent as boxa:claude:c2080807)" \
    test "$(json_field '[a["target"] for a in d["agents"] if a["host"] == "boxa"]' <"$work/hosts1.json")" = "['boxa:claude:c2080807']"
check "boxc answered (one done agent)" test "$(json_field '[a["state"] for a in d["agents"] if a["host"] == "boxc"]' <"$work/hosts1.json")" = "['done']"
check "boxb: no hookctl, with the fix" test "$(json_field "[(h['state'], h['fix']) for h in d['hosts'] if h['name'] == 'boxb'][0]" <"$work/hosts1.json")" = "('no_hookctl', 'hookctl deploy boxb')"
check "boxh: its 10 MB answer is a bad answer on its row only" test "$(state_in "$work/hosts1.json" boxh)" = bad_answer
check "every host has a latency" test "$(json_field 'all(h["latency_ms"] is not None for h in d["hosts"][1:])' <"$work/hosts1.json")" = True
check "the control sockets are in the runtime folder, mode 0700" sh -c "ls '$hosts_runtime/hookctl/ssh/' | grep -q . && test \"\$(stat -c %a '$hosts_runtime/hookctl/ssh')\" = 700"
# The link: the run above asked over ssh and started the owner, which links the hosts that answered.
link_log="$work/client/.local/state/hookctl/link.log"
links_up() { [ "$(grep -c ': link up ' "$link_log" 2>/dev/null)" -ge 2 ]; }
wait_for 30 links_up && pass "the link's owner linked boxa and boxc" || { fail "the link did not come up"; cat "$link_log" 2>/dev/null; }
check "the owner linked no host that did not answer (boxb, boxh)" sh -c "! grep -q 'box[bh]: link up' '$link_log'"
check "its socket is in the runtime folder, mode 0700" sh -c "test -S '$hosts_runtime/hookctl/link/sock' && test \"\$(stat -c %a '$hosts_runtime/hookctl/link')\" = 700"
serves_in() { # ROOT: the 'hookctl hosts serve' processes running inside ROOT
    for proc in /proc/[0-9]*; do
        [ "$(readlink "$proc/root" 2>/dev/null)" = "$1" ] && tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | grep -q 'hookctl hosts serve' && echo "${proc#/proc/}"
    done
}
check "boxa runs one 'hookctl hosts serve' (the link's remote end)" test "$(serves_in "$boxa_root" | wc -l)" = 1
as_user "$boxc_root" u1 sh -c 'printf %s "{\"session_id\":\"s-c2\",\"cwd\":\"/srv/docs\",\"hook_event_name\":\"Notification\",\"message\":\"ok?\"}" | hookctl notify --force --agent claude'
client status --hosts --json >"$work/hosts-linked.json" 2>&1 || true
check "through the link, boxc's new agent shows at once" \
    test "$(json_field '[a["target"] for a in d["agents"] if a["host"] == "boxc" and a["state"] == "needs_input"]' <"$work/hosts-linked.json")" = "['boxc:claude:s-c2']"
check "boxb is still asked over ssh (no hookctl)" test "$(state_in "$work/hosts-linked.json" boxb)" = no_hookctl
check "boxh's 10 MB answer is still a bad answer" test "$(state_in "$work/hosts-linked.json" boxh)" = bad_answer
client status --hosts --width 45 >"$work/hosts45.txt" 2>&1 || true
client status --hosts --width 80 >"$work/hosts80.txt" 2>&1 || true
sed 's/^/    /' "$work/hosts80.txt"
check "the 80-column table has a HOST column" grep -q '^STATE  *HOST  *AGENT' "$work/hosts80.txt"
check "the 45-column cards name boxa beside its window" grep -q '^  boxa · work:' "$work/hosts45.txt"
check "no escape byte from the remote agent's text reached the terminal" sh -c "! grep -q \$(printf '\\033') '$work/hosts80.txt' '$work/hosts45.txt'"
check "the missing hookctl says how to fix it" grep -q 'fix: hookctl deploy boxb' "$work/hosts80.txt"

client peek "boxa:$pane" --lines 0 >"$work/peek.txt" 2>&1 && pass "peek boxa:$pane" || { fail "peek boxa:$pane"; cat "$work/peek.txt"; }
check "peek shows boxa's pane" grep -q 'claude' "$work/peek.txt"
client peek 'boxa:$(touch /tmp/hookctl-pwned)' >/dev/null 2>&1 || true
check "a target with shell syntax reached no shell on boxa" test ! -e "$boxa_root/tmp/hookctl-pwned"
client reply "boxa:$pane" - <<<'use the v2 API; $(touch /tmp/hookctl-pwned2)' >"$work/reply.txt" 2>&1 &&
    pass "reply boxa:$pane (text on stdin)" || { fail "reply boxa:$pane"; cat "$work/reply.txt"; }
wait_for 10 test -s "$boxa_root/home/u1/got" || true
check "boxa's agent read the reply text" test "$(cat "$boxa_root/home/u1/got" 2>/dev/null)" = 'use the v2 API; $(touch /tmp/hookctl-pwned2)'
check "the reply text ran nowhere" test ! -e "$boxa_root/tmp/hookctl-pwned2" -a ! -e /tmp/hookctl-pwned2
client jump "boxa:$pane" >"$work/jump.txt" 2>&1 && pass "jump boxa:$pane prints the ssh line" || { fail "jump boxa:$pane"; cat "$work/jump.txt"; }
check "the jump line is ssh -t … tmux attach-session -t $pane" grep -q "ssh -t .*attach-session.*'$pane'" "$work/jump.txt"
client --color never status --format tmux --hosts >"$work/segment.txt" 2>&1 || true
check "the tmux segment counts boxa's waiting agent from the cache ($(cat "$work/segment.txt"))" grep -q '⚑' "$work/segment.txt"

log "boxa stops, boxc's host key changes"
for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/root" 2>/dev/null)" = "$boxa_root" ] && [ "$(cat "$proc/comm" 2>/dev/null)" = sshd ] && kill "${proc#/proc/}" 2>/dev/null
done
for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/root" 2>/dev/null)" = "$boxc_root" ] && [ "$(cat "$proc/comm" 2>/dev/null)" = sshd ] && kill "${proc#/proc/}" 2>/dev/null
done
rm -f "$boxc_root/etc/ssh/test_host_key" "$boxc_root/etc/ssh/test_host_key.pub"
ssh-keygen -q -t ed25519 -N '' -f "$boxc_root/etc/ssh/test_host_key"
sleep 0.5
chroot "$boxc_root" /usr/sbin/sshd -D -e -f /etc/ssh/test_sshd_config >>"$work/sshd-127.0.0.5.log" 2>&1 &
pids+=($!)
wait_for 20 python3 -c "import socket; socket.create_connection(('127.0.0.5', $port), 1)" 2>/dev/null || true
started=$SECONDS
client status --hosts --json >"$work/hosts2.json" 2>"$work/hosts2.err" && pass "status --hosts with a host down and a changed key" || { fail "status --hosts (2)"; cat "$work/hosts2.err"; }
check "it took less than its deadline ($((SECONDS - started)) s)" test $((SECONDS - started)) -le 12
check "boxa is unreachable, not silently missing" test "$(state_in "$work/hosts2.json" boxa)" = unreachable
check "boxc is refused by ssh's own host key check" \
    test "$(json_field "[h['error'] for h in d['hosts'] if h['name'] == 'boxc'][0]" <"$work/hosts2.json")" = "Host key verification failed."
check "boxa's agents are not replaced by local data" test "$(json_field '[a for a in d["agents"] if a["host"] in ("boxa", "boxc")]' <"$work/hosts2.json")" = "[]"
client status --hosts >"$work/hosts2.txt" 2>&1 || true
sed 's/^/    /' "$work/hosts2.txt"
check "the table says unreachable: boxa (why)" grep -q '^unreachable: boxa (' "$work/hosts2.txt"
check "boxc's row says to check the fingerprint" grep -q 'fix: the host key is unknown or changed' "$work/hosts2.txt"
check "the link to boxa ended with its sshd (link.log)" grep -q 'boxa: link closed' "$link_log"
client hosts remove boxa boxb boxc boxh >/dev/null && pass "hosts remove" || fail "hosts remove"
check "hosts list is empty again" test "$(client hosts list --json | json_field 'd["hosts"]')" = "[]"
check "hosts remove closed the masters (no socket left)" test -z "$(ls "$hosts_runtime/hookctl/ssh/")"
owner=$(sed -n 's/.*\[\([0-9]*\)\] started .*/\1/p' "$link_log" | tail -n 1)
rm -f "$hosts_runtime/hookctl/link/sock"
wait_for 10 sh -c "! kill -0 '$owner' 2>/dev/null" && pass "the owner stops when its socket goes (link.log: $(tail -n 1 "$link_log" | cut -d' ' -f3-))" ||
    { fail "the link's owner $owner still runs"; kill "$owner" 2>/dev/null; }
check "no 'hookctl hosts serve' is left on boxc" test -z "$(serves_in "$boxc_root")"
rm -rf "$hosts_runtime"
