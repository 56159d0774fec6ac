#!/usr/bin/env bash
# End-to-end tests of hookctl's packages and of `hookctl deploy`, on real Debian roots (needs root).
#
#   Tests/package/run.sh            (also run by .ci/run after the Swift tests)
#   HOOKCTL_TEST_ONLY=hosts Tests/package/run.sh   (the package, the roots' set-up, then only hosts.sh)
#
# 1. `./install.sh --package` builds the .deb and the tarball; dpkg-deb --info/--contents and lintian
#    check the .deb.
# 2. A Debian 12 root made by `debootstrap --variant=minbase` (cached under /var/tmp, built once in
#    about a minute, reused after; a half-made cache is thrown away and made again) gets
#    `apt-get install ./hookctl_*.deb`; inside it (chroot, /proc and /dev/pts mounted by this script)
#    a user runs setup, a notify reaches a relay this script runs outside the root, `session ensure`
#    works with the root's tmux; a purge leaves nothing. The tarball's install.sh installs without
#    Swift there; a source tree without Swift is refused with exit 69.
# 3. Two more roots run real sshd servers on loopback (throw-away host and user keys): deploy,
#    re-deploy, upgrade while a notify runs, --uninstall; a host without libcurl, an unreachable
#    host and a refused key fail with their own fix while the others succeed; the notify URL is
#    never in any process's argv (sampled from /proc all along).
# 4. Tests/package/hosts.sh: the board across hosts (status --hosts, peek/reply/jump HOST:TARGET)
#    against three more roots' sshd servers: one stopped mid-test, one without hookctl, one whose
#    host key changed (refused by ssh's own check).
# Everything it starts is stopped and everything it mounts is unmounted on exit, also on failure.
# Prints the package sizes and deploy wall times; ends with 'N passed, N failed'.
set -euo pipefail

source_root=$(cd "$(dirname "$0")/../.." && pwd)
cache_dir=${HOOKCTL_TEST_CACHE:-/var/tmp/hookctl-test-cache}
mirror=${HOOKCTL_TEST_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
[ "$(id -u)" = 0 ] || { echo "Tests/package/run.sh needs root (debootstrap, chroot, mount)" >&2; exit 77; }
for tool in debootstrap lintian dpkg-deb sshd ssh ssh-keygen python3 flock; do
    command -v "$tool" >/dev/null || { echo "missing $tool: .ci/run installs what these tests need" >&2; exit 69; }
done
export PATH="/opt/swift/usr/bin:/usr/sbin:/sbin:$PATH"

work=$(mktemp -d /var/tmp/hookctl-package-test.XXXXXX)
mounts=()
pids=()
passed=0
failed=0

log() { printf '== [%3ds] %s\n' "$SECONDS" "$*"; }
pass() { passed=$((passed + 1)); printf 'ok    %s\n' "$*"; }
fail() { failed=$((failed + 1)); printf 'FAIL  %s\n' "$*"; }
check() { # DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}

# Unmounts everything mounted below a directory, deepest first.
unmount_below() {
    local dir mount
    dir=$(readlink -f "$1")
    for mount in $(awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | sort -r); do
        umount "$mount" 2>/dev/null || umount -l "$mount" 2>/dev/null || true
    done
}

cleanup() {
    local status=$?
    set +e
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
    # Anything still running inside a root (tmux servers, flushers) holds its mounts busy.
    for proc in /proc/[0-9]*; do
        case $(readlink "$proc/root" 2>/dev/null) in "$work"/*) kill -9 "${proc#/proc/}" 2>/dev/null ;; esac
    done
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        umount "${mounts[$i]}" 2>/dev/null || umount -l "${mounts[$i]}" 2>/dev/null
    done
    unmount_below "$work"
    if [ "$status" != 0 ] || [ "$failed" != 0 ]; then
        for f in "$work"/sshd-*.log; do [ -f "$f" ] && sed "s|^|    $(basename "$f"): |" "$f" | tail -n 20; done
    fi
    if [ -n "${HOOKCTL_TEST_KEEP:-}" ]; then
        echo "kept $work (HOOKCTL_TEST_KEEP)" >&2
    elif ! awk -v d="$work" 'index($2, d "/") == 1 { found = 1 } END { exit !found }' /proc/mounts; then
        rm -rf --one-file-system "$work"
    else
        echo "left $work: something is still mounted there" >&2
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# The Debian root cache: a minbase root with apt's lists and the .debs the tests install
# downloaded (not installed), so later runs need no network. Made in a temporary folder and
# renamed into place with a marker when complete; anything else found there is made again.
base_root() {
    local arch key base
    arch=$(dpkg --print-architecture)
    key="$suite-$arch-minbase-v2"
    base="$cache_dir/$key"
    mkdir -p "$cache_dir"
    exec 9>"$cache_dir/.lock"
    flock -w 900 9 || { echo "cannot lock $cache_dir/.lock" >&2; return 1; }
    # Under the lock no other run is making one: a partial root is left from a run that died.
    local stale
    for stale in "$cache_dir/$key".partial.*; do
        [ -e "$stale" ] || continue
        unmount_below "$stale"
        rm -rf --one-file-system "$stale"
    done
    if [ ! -f "$base/.hookctl-cache-complete" ]; then
        log "making the Debian root cache $base (debootstrap, about a minute)" >&2
        if [ -e "$base" ]; then
            unmount_below "$base"
            rm -rf --one-file-system "$base"
        fi
        local partial="$cache_dir/$key.partial.$$"
        debootstrap --variant=minbase "$suite" "$partial" "$mirror" >"$work/debootstrap.log" 2>&1 ||
            { tail -n 20 "$work/debootstrap.log" >&2; return 1; }
        cp /etc/resolv.conf "$partial/etc/resolv.conf" 2>/dev/null || true
        chroot "$partial" apt-get update -qq >/dev/null 2>&1 || true
        chroot "$partial" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --download-only \
            libcurl4 libyaml-0-2 libcmark-gfm0.29.0.gfm.6 libcmark-gfm-extensions0.29.0.gfm.6 tmux openssh-server >"$work/download.log" 2>&1 ||
            { tail -n 20 "$work/download.log" >&2; return 1; }
        touch "$partial/.hookctl-cache-complete"
        mv "$partial" "$base"
    fi
    flock -u 9
    echo "$base"
}

# A fresh copy of the cached root for one test, with /proc and /dev/pts mounted.
new_root() { # NAME
    local root="$work/roots/$1"
    mkdir -p "$work/roots"
    cp -a "$base" "$root"
    rm -f "$root/.hookctl-cache-complete"
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    mount -t proc proc "$root/proc" && mounts+=("$root/proc")
    mkdir -p "$root/dev/pts"
    mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts" && mounts+=("$root/dev/pts")
    rm -f "$root/dev/ptmx" && ln -s pts/ptmx "$root/dev/ptmx"
    echo "$root"
}

in_root() { chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "${@:2}"; }

add_user() { # ROOT NAME
    # A '*' password: no password login, but not a locked account (sshd refuses those).
    in_root "$1" useradd --create-home --shell /bin/sh --password '*' "$2"
}

# Runs a shell command as USER inside ROOT, with that user's HOME and ~/.local/bin on PATH.
as_user() { # ROOT USER COMMAND [ARGS...]
    local root=$1 user=$2 ids
    ids=$(awk -F: -v u="$user" '$1 == u { print $3 ":" $4 }' "$root/etc/passwd")
    chroot --userspec="$ids" "$root" env -i HOME="/home/$user" USER="$user" LOGNAME="$user" LC_ALL=C.UTF-8 \
        PATH="/home/$user/.local/bin:/usr/bin:/bin" TMUX_TMPDIR="/home/$user" "${@:3}"
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The loopback relay (Tests/Fixtures/receiver.py) outside the roots; sets relay_port.
start_relay() { # LOG [RESPONSES]
    python3 "$source_root/Tests/Fixtures/receiver.py" --log "$1" --responses "${2:-200}" --lifetime 1800 >"$1.port" &
    pids+=($!)
    for _ in $(seq 100); do [ -s "$1.port" ] && break; sleep 0.05; done
    relay_port=$(head -n 1 "$1.port")
}

wait_for() { # SECONDS COMMAND...: polls until the command succeeds
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do [ $SECONDS -lt $deadline ] || return 1; sleep 0.1; done
}

requests() { [ -f "$1" ] && wc -l <"$1" || echo 0; }
more_requests() { [ "$(requests "$1")" -gt "$2" ]; } # LOG COUNT

# ---------------------------------------------------------------------------------------------
log "building the package (./install.sh --package)"
(cd "$source_root" && ./install.sh --package) >"$work/package.log" 2>&1 || { tail -n 30 "$work/package.log"; exit 1; }
version=$("$source_root/.build/release/hookctl" --version | sed 's/^hookctl //')
deb=$(ls "$source_root"/dist/hookctl_"$version"_*.deb)
tarball=$(ls "$source_root"/dist/hookctl-"$version"-linux-*.tar.gz)
pass "built $(basename "$deb") and $(basename "$tarball")"

info=$(dpkg-deb --info "$deb")
contents=$(dpkg-deb --contents "$deb")
glibc_needed=$(readelf --wide --version-info "$source_root/.build/release/hookctl" | sed -n 's/.*Name: GLIBC_\([0-9.]*\).*/\1/p' | sort -V | tail -n 1)
check "cmark-gfm is linked into the binary (no libcmark in its NEEDED)" sh -c "! readelf --wide --dynamic '$source_root/.build/release/hookctl' | grep -q 'NEEDED.*cmark'"
check "the binary has no library search path of its own (RUNPATH)" sh -c "! readelf --wide --dynamic '$source_root/.build/release/hookctl' | grep -qE 'RUNPATH|RPATH'"
check "control: Version is the binary's ($version)" grep -q "^ Version: $version\$" <<<"$info"
depends="libc6 (>= $glibc_needed), libcurl4 | libcurl4t64, libgcc-s1, libstdc++6, libyaml-0-2"
check "control: Depends $depends" grep -qxF " Depends: $depends" <<<"$info"
check "control: Recommends tmux" grep -q "^ Recommends: tmux\$" <<<"$info"
check "postinst says each user runs hookctl setup" sh -c "dpkg-deb --ctrl-tarfile '$deb' | tar -xOf - ./postinst | grep -q 'hookctl setup'"
for path in ./usr/bin/hookctl ./usr/share/hookctl/hooks/claude.json ./usr/share/hookctl/hooks/codex.json \
    ./usr/share/hookctl/hooks/gemini.json ./usr/share/hookctl/templates/hook.sh ./usr/share/hookctl/templates/config.yaml \
    ./usr/share/hookctl/templates/messages.json ./usr/share/doc/hookctl/copyright ./usr/share/doc/hookctl/README.md.gz; do
    check "the .deb holds $path" grep -q " $path\$" <<<"$contents"
done
check "nothing in the .deb outside /usr" test -z "$(awk '$6 != "./" && index($6, "./usr/") != 1' <<<"$contents")"
lintian --fail-on error "$deb" >"$work/lintian.txt" 2>&1 && lintian_status=0 || lintian_status=$?
sed 's/^/    lintian: /' "$work/lintian.txt"
check "lintian reports no errors" [ "$lintian_status" = 0 ]
tar_list=$(tar -tzf "$tarball")
tar_dir=$(basename "$tarball" .tar.gz)
for path in install.sh scripts/install-extras.sh bin/hookctl hooks/claude.json templates/hook.sh README.md; do
    check "the tarball holds $tar_dir/$path" grep -qx "$tar_dir/$path" <<<"$tar_list"
done
deb_size=$(stat -c %s "$deb")
tar_size=$(stat -c %s "$tarball")

# ---------------------------------------------------------------------------------------------
base=$(base_root)
if [ "${HOOKCTL_TEST_ONLY:-}" != hosts ]; then
log "the package in a fresh Debian root"
pkg_root=$(new_root pkg)
add_user "$pkg_root" alice
before=$(cd "$pkg_root" && find home root etc/skel -printf '%p %s %T@\n' | sort)
cp "$deb" "$pkg_root/tmp/"
in_root "$pkg_root" env DEBIAN_FRONTEND=noninteractive apt-get install -y "/tmp/$(basename "$deb")" >"$work/apt-install.log" 2>&1 &&
    pass "apt-get install ./$(basename "$deb") in the root" || { fail "apt-get install in the root"; tail -n 20 "$work/apt-install.log"; }
check "the install said to run hookctl setup" grep -q "each user who wants the agents' hooks runs" "$work/apt-install.log"
check "apt pulled in libcurl4, libyaml-0-2 and the recommended tmux" \
    in_root "$pkg_root" dpkg-query -W -f='${Status}\n' libcurl4 libyaml-0-2 tmux
check "no cmark-gfm library in the root (it is linked into hookctl)" \
    sh -c "! ls '$pkg_root'/usr/lib/*/libcmark-gfm* >/dev/null 2>&1"
after=$(cd "$pkg_root" && find home root etc/skel -printf '%p %s %T@\n' | sort)
check "installing changed no user's files" [ "$before" = "$after" ]
check "no Swift in the root" sh -c "! ls '$pkg_root'/usr/lib/swift '$pkg_root'/opt/swift >/dev/null 2>&1"
check "hookctl --version runs in the root" grep -qx "hookctl $version" <(in_root "$pkg_root" /usr/bin/hookctl --version)

start_relay "$work/relay.jsonl"
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
url="http://127.0.0.1:$relay_port/n/$token"
# Files are searched for the token with the pattern in a file: it is in no grep's argv either.
printf '/n/%s\n' "$token" >"$work/token.pattern"
has_token() { grep -qF -f "$work/token.pattern" "$@"; }
printf '%s\n' "$url" >"$pkg_root/home/alice/url"
chmod 600 "$pkg_root/home/alice/url"
chown --reference="$pkg_root/home/alice" "$pkg_root/home/alice/url"
# A mark in the installed messages shows that the binary finds its data in /usr/share/hookctl.
sed -i 's|"setup.undo": "To undo|"setup.undo": "(from /usr/share/hookctl) To undo|' "$pkg_root/usr/share/hookctl/templates/messages.json"
as_user "$pkg_root" alice hookctl setup --notify-url "$url" --agents claude >"$work/setup.out" 2>&1 &&
    pass "hookctl setup --notify-url as a user in the root" || { fail "setup in the root"; cat "$work/setup.out"; }
check "setup read its messages from /usr/share/hookctl" grep -q 'from /usr/share/hookctl' "$work/setup.out"
check "setup registered the hook with Claude Code" grep -q 'hookctl-hook' "$pkg_root/home/alice/.claude/settings.json"
hook=$(sed -n 's/.*"command": *"\([^"]*hookctl-hook[^"]*\)".*/\1/p' "$pkg_root/home/alice/.claude/settings.json" | head -n 1)
check "the hook script calls /usr/bin/hookctl" grep -q '/usr/bin/hookctl' "$pkg_root/home/alice/.local/share/hookctl/bin/hookctl-hook"
payload='{"hook_event_name":"Stop","session_id":"pkg-test","cwd":"/home/alice","last_assistant_message":"**done** in the root"}'
printf '%s' "$payload" | as_user "$pkg_root" alice env SSHIDO_SESSION=1 /home/alice/.local/share/hookctl/bin/hookctl-hook claude &&
    pass "the generated hook ran hookctl notify" || fail "the generated hook failed"
wait_for 10 has_token "$work/relay.jsonl" && pass "the notify reached the relay outside the root" || fail "no notify at the relay"
check "the relay got the event's text, its Markdown parsed without a cmark-gfm library" grep -q '"done in the root' "$work/relay.jsonl"
ensure=$(as_user "$pkg_root" alice hookctl session ensure --name pkgtest -L hookctl-test --json 2>&1) &&
    pass "session ensure created a tmux session in the root" || { fail "session ensure"; echo "$ensure"; }
check "session ensure reports the session" grep -q '"name" *: *"pkgtest"' <<<"$ensure"
again=$(as_user "$pkg_root" alice hookctl session ensure --name pkgtest -L hookctl-test --json 2>&1 || true)
check "session ensure reuses it" grep -q '"created_now" *: *false' <<<"$again"
as_user "$pkg_root" alice tmux -L hookctl-test kill-server 2>/dev/null || true

in_root "$pkg_root" env DEBIAN_FRONTEND=noninteractive apt-get purge -y hookctl >"$work/purge.log" 2>&1 &&
    pass "apt-get purge hookctl" || { fail "apt-get purge"; tail "$work/purge.log"; }
rm -f "$pkg_root/tmp/$(basename "$deb")"
left=$(cd "$pkg_root" && find . -xdev -path ./home -prune -o -path ./proc -prune -o -name '*hookctl*' -print)
check "the purge left nothing of the package behind" [ -z "$left" ]
[ -z "$left" ] || echo "$left" | sed 's/^/    left: /'
check "dpkg no longer knows hookctl" sh -c "! chroot '$pkg_root' dpkg-query -W -f='\${Status}' hookctl 2>/dev/null | grep -q installed"

log "the tarball in the same root (no Swift, no package)"
mkdir -p "$pkg_root/home/alice/dl"
tar -xzf "$tarball" -C "$pkg_root/home/alice/dl"
chown -R --reference="$pkg_root/home/alice" "$pkg_root/home/alice/dl"
as_user "$pkg_root" alice sh -c "cd ~/dl/$tar_dir && ./install.sh --notify-url-file ~/url --agents claude" >"$work/tar-install.log" 2>&1 &&
    pass "the tarball's install.sh installed without Swift" || { fail "the tarball's install.sh"; tail -n 20 "$work/tar-install.log"; }
check "it installed ~/.local/bin/hookctl" grep -qx "hookctl $version" <(as_user "$pkg_root" alice /home/alice/.local/bin/hookctl --version)
check "it installed the manifests in ~/.local/share/hookctl" test -f "$pkg_root/home/alice/.local/share/hookctl/hooks/claude.json"
check "setup took the URL from the file" has_token "$pkg_root/home/alice/.config/hookctl/config.yaml"
mkdir -p "$pkg_root/home/alice/src"
cp "$source_root/install.sh" "$source_root/Package.swift" "$pkg_root/home/alice/src/"
chown -R --reference="$pkg_root/home/alice" "$pkg_root/home/alice/src"
status=0
as_user "$pkg_root" alice sh -c 'cd ~/src && ./install.sh' >"$work/nosw.log" 2>&1 || status=$?
check "install.sh from source without Swift exits 69" [ "$status" = 69 ]
check "... and says to use the package or deploy" grep -q 'apt install ./hookctl_' "$work/nosw.log"

# ---------------------------------------------------------------------------------------------
fi  # HOOKCTL_TEST_ONLY
log "deploy over ssh to real sshd servers in two roots"
ssh_dir="$work/ssh"
mkdir -p "$ssh_dir"
chmod 700 "$ssh_dir"
ssh-keygen -q -t ed25519 -N '' -C hookctl-test -f "$ssh_dir/id"
ssh-keygen -q -t ed25519 -N '' -C wrong -f "$ssh_dir/wrong"
port=$(free_port)
: >"$ssh_dir/known_hosts"

# ROOT ADDRESS: an sshd on ADDRESS:port inside ROOT, with its own host key and test users.
start_sshd() {
    local root=$1 address=$2
    ssh-keygen -q -t ed25519 -N '' -f "$root/etc/ssh/test_host_key"
    echo "[$address]:$port $(cut -d' ' -f1,2 "$root/etc/ssh/test_host_key.pub")" >>"$ssh_dir/known_hosts"
    mkdir -p "$root/run/sshd"
    cat >"$root/etc/ssh/test_sshd_config" <<EOF
ListenAddress $address:$port
HostKey /etc/ssh/test_host_key
PidFile none
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys
MaxStartups 40:30:100
MaxSessions 40
EOF
    chroot "$root" /usr/sbin/sshd -D -e -f /etc/ssh/test_sshd_config >"$work/sshd-$address.log" 2>&1 &
    pids+=($!)
    wait_for 20 python3 -c "import socket,sys; socket.create_connection(('$address', $port), 1)" 2>/dev/null
}

authorize() { # ROOT USER
    add_user "$1" "$2"
    mkdir -p "$1/home/$2/.ssh"
    cp "$ssh_dir/id.pub" "$1/home/$2/.ssh/authorized_keys"
    chown -R --reference="$1/home/$2" "$1/home/$2/.ssh"
    chmod 700 "$1/home/$2/.ssh"
}

host_root=$(new_root host)
in_root "$host_root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    openssh-server libcurl4 libyaml-0-2 >"$work/host-apt.log" 2>&1 || { tail "$work/host-apt.log"; exit 1; }
for user in u1 u2 u3 u4 u5; do authorize "$host_root" "$user"; done
add_user "$host_root" nokey
start_sshd "$host_root" 127.0.0.1 && pass "sshd runs in the host root on 127.0.0.1:$port" || fail "sshd did not start"

nocurl_root=$(new_root nocurl)
in_root "$nocurl_root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    openssh-server libyaml-0-2 >"$work/nocurl-apt.log" 2>&1 || { tail "$work/nocurl-apt.log"; exit 1; }
authorize "$nocurl_root" old
start_sshd "$nocurl_root" 127.0.0.2 && pass "sshd runs in a root without libcurl on 127.0.0.2:$port" || fail "second sshd did not start"

mkdir -p "$work/client"
tar -xzf "$tarball" -C "$work/client"
hookctl="$work/client/$tar_dir/bin/hookctl"
ssh_options=(--ssh-option "Port=$port" --ssh-option "IdentityFile=$ssh_dir/id" --ssh-option IdentitiesOnly=yes
    --ssh-option "UserKnownHostsFile=$ssh_dir/known_hosts" --ssh-option GlobalKnownHostsFile=/dev/null
    --ssh-option StrictHostKeyChecking=yes --ssh-option LogLevel=ERROR)
url=${url:-http://127.0.0.1:9/n/$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')}  # HOOKCTL_TEST_ONLY=hosts: no relay
printf '%s\n' "$url" >"$work/url"
chmod 600 "$work/url"
# The deploying user's own environment, with a private HOME (ssh reads its config from the account).
client() { env -i PATH=/usr/bin:/bin HOME="$work/client" LC_ALL=C.UTF-8 "$hookctl" "$@"; }

# Every process's argv, sampled all along the deploys: the URL's token must never be in one.
cat >"$work/sampler.py" <<'EOF'
import os, sys, time
# The URL comes on stdin, so this process's own argv does not hold it.
token = sys.stdin.readline().strip().rsplit("/", 1)[-1].encode()
stop, out = sys.argv[1], sys.argv[2]
samples = saw_ssh = saw_setup = leaks = 0
while not os.path.exists(stop):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read()
        except OSError:
            continue
        if token in argv:
            leaks += 1
            with open(out + ".leaks", "a") as f:
                f.write(argv.replace(b"\0", b" ").decode("utf-8", "replace") + "\n")
        if argv.startswith(b"ssh\0") or argv.startswith(b"/usr/bin/ssh\0") or argv.startswith(b"sshd:"):
            saw_ssh += 1
        if b"hookctl\0setup" in argv:
            saw_setup += 1
    samples += 1
    time.sleep(0.005)
with open(out, "w") as f:
    f.write(f"{samples} {saw_ssh} {saw_setup} {leaks}\n")
EOF
python3 "$work/sampler.py" "$work/sampler.stop" "$work/sampler.out" <"$work/url" &
sampler=$!
pids+=($sampler)

json_field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }

if [ "${HOOKCTL_TEST_ONLY:-}" != hosts ]; then  # HOOKCTL_TEST_ONLY=hosts: only the board across hosts (hosts.sh) after the set-up
start=$(date +%s.%N)
client deploy u1@127.0.0.1 --notify-url-file "$work/url" --agents claude "${ssh_options[@]}" --json >"$work/deploy1.json" 2>"$work/deploy1.err" &&
    pass "deploy to one host" || { fail "deploy to one host"; cat "$work/deploy1.json" "$work/deploy1.err"; }
one_host=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
check "deploy: result installed, version $version, agent claude" \
    test "$(json_field '(d["hosts"][0]["result"], d["hosts"][0]["version_after"], d["hosts"][0]["agents"])' <"$work/deploy1.json")" = "('installed', '$version', ['claude'])"
check "deploy: the binary is in ~/.local/bin there" test -x "$host_root/home/u1/.local/bin/hookctl"
check "deploy: the manifests are in ~/.local/share/hookctl there" test -f "$host_root/home/u1/.local/share/hookctl/hooks/claude.json"
check "deploy: setup there registered Claude Code's hook" grep -q hookctl-hook "$host_root/home/u1/.claude/settings.json"
check "deploy: the URL arrived intact (over ssh's stdin)" has_token "$host_root/home/u1/.config/hookctl/config.yaml"
sent=$(requests "$work/relay.jsonl")
as_user "$host_root" u1 hookctl test --json >"$work/test.json" 2>&1 && pass "hookctl test on the deployed host" || { fail "hookctl test there"; cat "$work/test.json"; }
check "the deployed host's test event reached the relay" sh -c "[ \$(wc -l <'$work/relay.jsonl') -gt $sent ] && tail -n 1 '$work/relay.jsonl' | grep -qF -f '$work/token.pattern'"

client deploy u1@127.0.0.1 --agents claude "${ssh_options[@]}" --json >"$work/deploy2.json" 2>&1 &&
    pass "re-deploy" || { fail "re-deploy"; cat "$work/deploy2.json"; }
check "re-deploy: unchanged, nothing sent" test "$(json_field 'd["hosts"][0]["result"]' <"$work/deploy2.json")" = unchanged
check "re-deploy: the relay URL is kept" has_token "$host_root/home/u1/.config/hookctl/config.yaml"
client deploy u1@127.0.0.1 --agents claude "${ssh_options[@]}" >"$work/deploy2.txt" 2>&1 || true
sed 's/^/    /' "$work/deploy2.txt"
check "the table names the host and its result" grep -q '^u1@127.0.0.1 *unchanged' "$work/deploy2.txt"

log "upgrade while a notify runs"
# An older copy: the same program with other bytes (what deploy compares).
cp "$hookctl" "$work/older"
printf 'older' >>"$work/older"
install -o "$(stat -c %u "$host_root/home/u1")" -m 755 "$work/older" "$host_root/home/u1/.local/bin/hookctl" || true
# Answered once the deploy is over and the notify has been seen running on the replaced binary (a
# fixed delay raced the deploy: a slow deploy outlasted it and found the notify gone). A deploy slower
# than the notify's 10 s per-attempt timeout only costs it a try: its 30 s budget makes three.
echo "200:gate" >"$work/relay.jsonl.responses"
sent=$(requests "$work/relay.jsonl")
printf '%s' '{"hook_event_name":"Stop","session_id":"upgrade","last_assistant_message":"during the upgrade"}' >"$work/payload"
as_user "$host_root" u1 env SSHIDO_SESSION=1 /home/u1/.local/bin/hookctl notify --agent claude --strict --budget 30s \
    <"$work/payload" >"$work/notify-upgrade.log" 2>&1 &
notify_pid=$!
wait_for 10 more_requests "$work/relay.jsonl" "$sent" && pass "the notify is waiting for the relay" || fail "the notify did not start"
# The request waiting on the relay is the user's sender's (`outbox flush --background`, started by the
# hook, which only commits), or the notify's own where it delivers in the foreground.
running=$( (grep -lz -- '/home/u1/.local/bin/hookctl' /proc/[0-9]*/cmdline 2>/dev/null | while read -r f; do
    p=${f%/cmdline}; tr '\0' ' ' 2>/dev/null <"$f" | grep -q '^/home/u1/.local/bin/hookctl \(notify\|outbox flush\)' && echo "${p#/proc/}"; done | head -n 1) || true)
client deploy u1@127.0.0.1 --agents claude "${ssh_options[@]}" --json >"$work/deploy3.json" 2>&1 &&
    pass "deploy while the notify runs" || { fail "deploy during a notify"; cat "$work/deploy3.json"; }
check "upgrade: result updated" test "$(json_field 'd["hosts"][0]["result"]' <"$work/deploy3.json")" = updated
running_exe=$(readlink "/proc/$running/exe" 2>/dev/null || true)
touch "$work/relay.jsonl.gate"
check "upgrade: the send ran across the deploy, on the old binary, now replaced (${running_exe##*/})" \
    test -n "$running" -a "${running_exe% (deleted)}" != "$running_exe"
notify_status=0
wait "$notify_pid" || notify_status=$?
check "upgrade: the notify that ran across it delivered (exit 0)" [ "$notify_status" = 0 ]
check "upgrade: the new binary is in place" cmp -s "$hookctl" "$host_root/home/u1/.local/bin/hookctl"
echo "200" >"$work/relay.jsonl.responses"

log "failures per host, while the others succeed"
authorize_wrong() { cp "$ssh_dir/wrong.pub" "$host_root/home/nokey/.ssh/authorized_keys" 2>/dev/null || true; }
authorize_wrong
status=0
client deploy u2@127.0.0.1 old@127.0.0.2 u3@127.0.0.3 nokey@127.0.0.1 --notify-url-file - "${ssh_options[@]}" --json \
    <"$work/url" >"$work/deploy4.json" 2>"$work/deploy4.err" || status=$?
check "mixed hosts: exit 69 (some failed)" [ "$status" = 69 ]
result() { json_field "[h for h in d['hosts'] if h['host'] == '$1'][0]['$2']" <"$work/deploy4.json"; }
check "mixed hosts: the good host installed" test "$(result u2@127.0.0.1 result)" = installed
check "mixed hosts: the host without libcurl failed" test "$(result old@127.0.0.2 result)" = failed
check "mixed hosts: ... saying libcurl.so.4 is missing" grep -q 'libcurl.so.4' <<<"$(result old@127.0.0.2 reason)"
check "mixed hosts: ... and nothing else (cmark-gfm is linked in)" test "$(result old@127.0.0.2 reason)" = "old@127.0.0.2 lacks libcurl.so.4"
check "mixed hosts: ... with the apt command for it" \
    grep -q 'apt-get install libcurl4$' <<<"$(result old@127.0.0.2 fix)"
check "mixed hosts: nothing was copied to the host without libcurl" test ! -e "$nocurl_root/home/old/.local/bin/hookctl"
check "mixed hosts: the unreachable host failed with its reason" grep -qi 'refused\|timed out' <<<"$(result u3@127.0.0.3 reason)"
check "mixed hosts: ... and a fix" grep -q 'unreachable' <<<"$(result u3@127.0.0.3 fix)"
check "mixed hosts: the refused key failed with 'Permission denied'" grep -q 'Permission denied' <<<"$(result nokey@127.0.0.1 reason)"
check "mixed hosts: ... and a fix about the key" grep -q 'refused the key' <<<"$(result nokey@127.0.0.1 fix)"
client deploy u2@127.0.0.1 old@127.0.0.2 "${ssh_options[@]}" >"$work/deploy4.txt" 2>&1 || true
sed 's/^/    /' "$work/deploy4.txt"

log "four hosts at once (four accounts on the same server)"
start=$(date +%s.%N)
client deploy u2@127.0.0.1 u3@127.0.0.1 u4@127.0.0.1 u5@127.0.0.1 --agents claude --notify-url-file "$work/url" "${ssh_options[@]}" --json \
    >"$work/deploy5.json" 2>&1 && pass "deploy to four hosts at once" || { fail "deploy to four hosts"; cat "$work/deploy5.json"; }
four_hosts=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
check "four hosts: u3, u4, u5 installed, u2 configured or unchanged" \
    test "$(json_field '[h["result"] for h in d["hosts"]]' <"$work/deploy5.json")" = "['configured', 'installed', 'installed', 'installed']"

log "--uninstall"
client deploy u1@127.0.0.1 --uninstall "${ssh_options[@]}" --json >"$work/deploy6.json" 2>&1 &&
    pass "deploy --uninstall" || { fail "deploy --uninstall"; cat "$work/deploy6.json"; }
check "uninstall: result uninstalled" test "$(json_field 'd["hosts"][0]["result"]' <"$work/deploy6.json")" = uninstalled
check "uninstall: the binary is gone" test ! -e "$host_root/home/u1/.local/bin/hookctl"
check "uninstall: the data and the generated hook script are gone" test ! -e "$host_root/home/u1/.local/share/hookctl"
check "uninstall: Claude Code's settings no longer name hookctl" sh -c "! grep -q hookctl '$host_root/home/u1/.claude/settings.json' 2>/dev/null"

fi  # HOOKCTL_TEST_ONLY
# The board across hosts: three more roots with sshd, hookctl and agents of their own.
source "$source_root/Tests/package/hosts.sh"

touch "$work/sampler.stop"
wait "$sampler" 2>/dev/null || true
read -r samples saw_ssh saw_setup leaks <"$work/sampler.out"
check "argv sampler ran all along ($samples samples, ssh seen in $saw_ssh, setup in $saw_setup)" test "$samples" -gt 100 -a "$saw_ssh" -gt 0
check "the URL was in no process's argv on either side" [ "$leaks" = 0 ]
[ ! -f "$work/sampler.out.leaks" ] || sed 's/^/    leak: /' "$work/sampler.out.leaks" | sed "s,/n/[0-9a-f]*,/n/<token>,g"

[ "${HOOKCTL_TEST_ONLY:-}" = hosts ] ||
    printf '\nFigures: .deb %s bytes, tarball %s bytes; deploy (fresh install) to one host %.2f s, to four hosts at once %.2f s\n' \
    "$deb_size" "$tar_size" "$one_host" "$four_hosts"
printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" = 0 ]
