#!/bin/sh
# A stuck link owner: how long `status --hosts --json` takes when something holds the link's socket,
# takes each connection and never answers, beside the same run with the link off (ssh per call), and
# the run after it. ssh is a fake (the remote command run by /bin/sh in a per-host HOME), so this
# measures hookctl's own waiting, not the network.
# Usage: bench/hosts/stuck-owner.sh [path/to/hookctl] [rounds]   (default .build/debug/hookctl, 3)
set -eu
bin=$(realpath "${1:-.build/debug/hookctl}"); rounds=${2:-3}
tmp=$(mktemp -d /tmp/hookctl-stuck.XXXXXX); trap 'rm -f "$tmp/run/hookctl/link/sock"; sleep 1.2; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/.config/hookctl" "$tmp/run" && chmod 700 "$tmp/run"
cat >"$tmp/bin/ssh" <<'SSH'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -o) shift 2 ;; -T|-t) shift ;; --) shift; break ;; *) break ;; esac; done
host=$1; shift
exec env -i HOME="$FAKE_HOSTS/$host" PATH=/nonexistent /bin/sh -c "$*"
SSH
printf 'version: 1\nhosts:\n' >"$tmp/.config/hookctl/config.yaml"
for h in box1 box2 box3; do
  mkdir -p "$tmp/hosts/$h/.local/bin"
  printf '#!/bin/sh\n[ "$1 $2" = "hosts serve" ] && { while read -r l; do echo "{\\"last_seq\\":1,\\"agents\\":[]}"; done; exit 0; }\necho "{\\"last_seq\\":1,\\"agents\\":[]}"\n' >"$tmp/hosts/$h/.local/bin/hookctl"
  printf '  - name: %s\n    ssh: %s\n' $h $h >>"$tmp/.config/hookctl/config.yaml"
done
chmod 755 "$tmp/bin/ssh" "$tmp"/hosts/*/.local/bin/hookctl
export HOME="$tmp" XDG_RUNTIME_DIR="$tmp/run" FAKE_HOSTS="$tmp/hosts" PATH="$tmp/bin:/usr/bin:/bin"
sock="$tmp/run/hookctl/link/sock"
ms() { s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; echo $(( ($(date +%s%N) - s) / 1000000 )); }
HOOKCTL_NO_BACKGROUND=1 "$bin" status --hosts --json >/dev/null 2>&1 || true   # makes the runtime folders
for r in $(seq "$rounds"); do
  python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8); s.settimeout(0.2); held = []
end = time.time() + 30
while time.time() < end:
    try: held.append(s.accept()[0])
    except socket.timeout: pass
' "$sock" &
  fake=$!; while [ ! -S "$sock" ]; do sleep 0.01; done
  stuck=$(ms "$bin" status --hosts --json)
  after=$(ms "$bin" status --hosts --json)
  base=$(HOOKCTL_NO_LINK=1 ms "$bin" status --hosts --json)
  kill $fake 2>/dev/null || true; wait $fake 2>/dev/null || true
  rm -f "$sock"; sleep 1.2   # the owner the runs started stops
  echo "round $r: stuck owner ${stuck} ms, the run after ${after} ms, link off ${base} ms"
done
grep -c "asker: the link's owner" "$tmp/.local/state/hookctl/link.log" | sed 's/^/stuck owners noted in link.log: /'
