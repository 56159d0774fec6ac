#!/bin/sh
# Builds hookctl, installs it for this user, and runs `hookctl setup` for the agents found.
#
#   ./install.sh [--notify-url URL] [--agents claude,codex,gemini] [--prefix DIR] [--no-setup]
#
# Installs   $PREFIX/bin/hookctl                   (default PREFIX: ~/.local)
#            $PREFIX/share/hookctl/{hooks,templates} (agent manifests and templates)
# then runs  hookctl setup [--notify-url URL] [--agents LIST]
# Safe to run again: it rebuilds, replaces the binary and re-runs setup, which changes nothing that is
# already right. Undo: hookctl uninstall; rm -rf "$PREFIX/bin/hookctl" "$PREFIX/share/hookctl"
set -eu

say() { printf '%s\n' "$*"; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

notify_url=
agents=
prefix=${PREFIX:-}
run_setup=1
while [ $# -gt 0 ]; do
    case "$1" in
        --notify-url) [ $# -ge 2 ] || die "--notify-url needs a URL"; notify_url=$2; shift 2 ;;
        --notify-url=*) notify_url=${1#*=}; shift ;;
        --agents) [ $# -ge 2 ] || die "--agents needs a list"; agents=$2; shift 2 ;;
        --agents=*) agents=${1#*=}; shift ;;
        --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; prefix=$2; shift 2 ;;
        --prefix=*) prefix=${1#*=}; shift ;;
        --no-setup) run_setup=0; shift ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (see ./install.sh --help)" ;;
    esac
done
[ -n "$prefix" ] || prefix="$HOME/.local"
case "$prefix" in /*) ;; *) prefix="$(pwd)/$prefix" ;; esac

root=$(cd "$(dirname "$0")" && pwd)
cd "$root"
[ -f Package.swift ] || die "run install.sh from the hookctl source tree"

# 1. Build dependencies (Debian/Ubuntu): only what is missing, apt-get update once.
packages="libcurl4-openssl-dev libyaml-dev libssl-dev pkg-config"
if command -v dpkg-query >/dev/null 2>&1; then
    missing=
    for package in $packages; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing="$missing $package"
        fi
    done
    if [ -n "$missing" ]; then
        if [ "$(id -u)" = 0 ]; then
            say "Installing build dependencies:$missing"
            apt-get update -qq
            # shellcheck disable=SC2086
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
        else
            die "missing build dependencies:$missing
Install them first, then run ./install.sh again:
    sudo apt-get update && sudo apt-get install -y$missing"
        fi
    fi
fi

# 2. Swift: on PATH, or the usual /opt/swift install.
swift=$(command -v swift 2>/dev/null || true)
if [ -z "$swift" ] && [ -x /opt/swift/usr/bin/swift ]; then swift=/opt/swift/usr/bin/swift; fi
[ -n "$swift" ] || die "swift was not found on PATH or in /opt/swift/usr/bin; install the Swift toolchain (swift.org/install)"

# 3. Release build with the Swift runtime linked in, so the binary runs without the toolchain.
say "Building hookctl (release, static Swift runtime) with $swift…"
"$swift" build -c release --static-swift-stdlib -Xlinker -s
bin_dir=$("$swift" build -c release --static-swift-stdlib -Xlinker -s --show-bin-path)
[ -x "$bin_dir/hookctl" ] || die "the build did not produce $bin_dir/hookctl"

# 4. Install: binary, then the data next to it (atomic replace of the binary: running hooks keep working).
share="$prefix/share/hookctl"
mkdir -p "$prefix/bin" "$share"
cp "$bin_dir/hookctl" "$prefix/bin/.hookctl.new.$$"
chmod 755 "$prefix/bin/.hookctl.new.$$"
mv -f "$prefix/bin/.hookctl.new.$$" "$prefix/bin/hookctl"
rm -rf "$share/hooks.new" "$share/templates.new"
mkdir -p "$share/hooks.new" "$share/templates.new"
cp "$root"/hooks/*.json "$root"/hooks/README.md "$share/hooks.new/"
cp "$root"/templates/hook.sh "$root"/templates/config.yaml "$root"/templates/messages.json "$share/templates.new/"
rm -rf "$share/hooks" "$share/templates"
mv "$share/hooks.new" "$share/hooks"
mv "$share/templates.new" "$share/templates"
say "Installed $prefix/bin/hookctl ($("$prefix/bin/hookctl" --version))"
say "Installed $share/hooks and $share/templates"

# 5. Setup for the agents found (or the ones named).
if [ "$run_setup" = 1 ]; then
    say ""
    say "Running: hookctl setup${notify_url:+ --notify-url (redacted)}${agents:+ --agents $agents}"
    set -- setup
    [ -z "$notify_url" ] || set -- "$@" --notify-url "$notify_url"
    [ -z "$agents" ] || set -- "$@" --agents "$agents"
    "$prefix/bin/hookctl" "$@" || die "hookctl setup failed (see above); fix it and run ./install.sh again"
fi

say ""
case ":${PATH:-}:" in
    *":$prefix/bin:"*) ;;
    *) say "Note: $prefix/bin is not on your PATH. Add it: echo 'export PATH=\"$prefix/bin:\$PATH\"' >> ~/.profile" ;;
esac
say "Next: hookctl doctor     (checks everything)"
say "      hookctl test     (sends a test notification, once a notify URL is set up)"
say "Undo: hookctl uninstall && rm -rf '$prefix/bin/hookctl' '$share'"
