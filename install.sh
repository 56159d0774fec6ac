#!/bin/sh
# Builds hookctl (or takes the prebuilt one beside it), installs it for this user, runs `hookctl setup`.
#
#   ./install.sh [--notify-url-file FILE|- | --notify-url URL] [--agents LIST] [--prefix DIR] [--no-setup]
#   ./install.sh --package     builds dist/hookctl_VERSION_ARCH.deb and dist/hookctl-VERSION-linux-ARCH.tar.gz
#
# Installs   $PREFIX/bin/hookctl                   (default PREFIX: ~/.local)
#            $PREFIX/share/hookctl/{hooks,templates} (agent manifests and templates)
#            completions, man pages and README (scripts/install-extras.sh)
# then runs  hookctl setup [--notify-url-file -] [--agents LIST]   (the URL goes on its stdin)
# Safe to run again: it replaces the binary and re-runs setup, which changes nothing already right.
# Undo: hookctl uninstall; rm -rf "$PREFIX/bin/hookctl" "$PREFIX/share/hookctl"
set -eu

say() { printf '%s\n' "$*"; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

notify_url=
notify_url_file=
make_package=0
agents=
prefix=${PREFIX:-}
run_setup=1
while [ $# -gt 0 ]; do
    case "$1" in
        --notify-url) [ $# -ge 2 ] || die "--notify-url needs a URL"; notify_url=$2; shift 2 ;;
        --notify-url=*) notify_url=${1#*=}; shift ;;
        --notify-url-file) [ $# -ge 2 ] || die "--notify-url-file needs a file (or - for stdin)"; notify_url_file=$2; shift 2 ;;
        --notify-url-file=*) notify_url_file=${1#*=}; shift ;;
        --package) make_package=1; shift ;;
        --agents) [ $# -ge 2 ] || die "--agents needs a list"; agents=$2; shift 2 ;;
        --agents=*) agents=${1#*=}; shift ;;
        --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; prefix=$2; shift 2 ;;
        --prefix=*) prefix=${1#*=}; shift ;;
        --no-setup) run_setup=0; shift ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (see ./install.sh --help)" ;;
    esac
done
[ -z "$notify_url" ] || [ -z "$notify_url_file" ] || die "give --notify-url or --notify-url-file, not both"
case "$notify_url_file" in ""|-|/*) ;; *) notify_url_file="$(pwd)/$notify_url_file" ;; esac
[ -n "$prefix" ] || prefix="$HOME/.local"
case "$prefix" in /*) ;; *) prefix="$(pwd)/$prefix" ;; esac

root=$(cd "$(dirname "$0")" && pwd)
cd "$root"

# 0. Where the binary comes from: the prebuilt one of a release tarball (bin/hookctl beside this
#    script, no Package.swift), else a build from this source tree, which needs Swift.
swift=$(command -v swift 2>/dev/null || true)
if [ -z "$swift" ] && [ -x /opt/swift/usr/bin/swift ]; then swift=/opt/swift/usr/bin/swift; fi
if [ ! -f Package.swift ] && [ -x bin/hookctl ]; then
    [ "$make_package" = 0 ] || die "--package builds from the source tree; this is an unpacked release"
    bin_dir="$root/bin"
    say "Installing the prebuilt hookctl from $root"
else # steps 1 and 2 (to the matching 'fi' below): the build from source
[ -f Package.swift ] || die "run install.sh from the hookctl source tree or an unpacked release tarball"
if [ -z "$swift" ]; then
    printf '%s\n' "install.sh: error: this is hookctl's source tree, and Swift is not installed here (not on PATH," \
        "nor in /opt/swift/usr/bin). Either:" \
        "  - install the Swift toolchain (swift.org/install) and run ./install.sh again;" \
        "  - on a machine with Swift, build the package with ./install.sh --package, copy" \
        "    dist/hookctl_VERSION_ARCH.deb here and run: sudo apt install ./hookctl_VERSION_ARCH.deb" \
        "    (or unpack dist/hookctl-VERSION-linux-ARCH.tar.gz here and run its ./install.sh);" \
        "  - or, from a machine where hookctl is installed: hookctl deploy THIS_HOST" >&2
    exit 69
fi

# 1. Build dependencies (Debian/Ubuntu): only what is missing, apt-get update once.
packages="libcurl4-openssl-dev libyaml-dev libssl-dev zlib1g-dev libcmark-gfm-dev libcmark-gfm-extensions-dev pkg-config"
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

# 2. Release build with the Swift runtime linked in, so the binary runs without the toolchain; no
#    $ORIGIN search path (it needs no library of its own, and the loader would look in its folder, and
#    its hardware subfolders, for every library first: 0.3 ms of every hook).
say "Building hookctl (release, static Swift runtime) with $swift…"
"$swift" build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -s
bin_dir=$("$swift" build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -s --show-bin-path)
[ -x "$bin_dir/hookctl" ] || die "the build did not produce $bin_dir/hookctl"
fi # end of the build from source (steps 1 and 2)

# 3. --package: the .deb and the tarball from this build, in dist/ (see .install/package.sh).
if [ "$make_package" = 1 ]; then
    exec sh "$root/.install/package.sh" "$bin_dir/hookctl" "$root" "$root/dist"
fi

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
# Completions, man pages and the README, generated by the binary just installed: under
# XDG_DATA_HOME for the default per-user prefix, else under $PREFIX/share.
extras_share="$prefix/share"
if [ "$prefix" = "$HOME/.local" ] && [ -n "${XDG_DATA_HOME:-}" ]; then extras_share=$XDG_DATA_HOME; fi
"$root/scripts/install-extras.sh" "$prefix/bin/hookctl" "$extras_share"

# 5. Setup for the agents found (or the ones named).
if [ "$run_setup" = 1 ]; then
    say ""
    say "Running: hookctl setup${notify_url:+ --notify-url-file - (the URL on stdin)}${notify_url_file:+ --notify-url-file $notify_url_file}${agents:+ --agents $agents}"
    set -- setup
    [ -z "$notify_url_file" ] || set -- "$@" --notify-url-file "$notify_url_file"
    [ -z "$agents" ] || set -- "$@" --agents "$agents"
    # The URL goes to hookctl on a pipe (printf is a shell builtin): it is in no process list.
    if [ -n "$notify_url" ]; then
        printf '%s\n' "$notify_url" | "$prefix/bin/hookctl" "$@" --notify-url-file - || die "hookctl setup failed (see above); fix it and run ./install.sh again"
    else
        "$prefix/bin/hookctl" "$@" || die "hookctl setup failed (see above); fix it and run ./install.sh again"
    fi
fi

say ""
case ":${PATH:-}:" in
    *":$prefix/bin:"*) ;;
    *) say "Note: $prefix/bin is not on your PATH. Add it: echo 'export PATH=\"$prefix/bin:\$PATH\"' >> ~/.profile" ;;
esac
say "Next: hookctl doctor     (checks everything)"
say "      hookctl test       (sends a test push, once a notify URL is set up)"
say "Undo: hookctl uninstall && rm -rf '$prefix/bin/hookctl' '$share'"
