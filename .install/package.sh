#!/bin/sh
# Packages a release build of hookctl; run by `./install.sh --package`, which builds it first.
#
#   sh .install/package.sh BINARY SOURCE_TREE OUTPUT_DIR
#
# Writes OUTPUT_DIR/hookctl_VERSION_DEBARCH.deb and OUTPUT_DIR/hookctl-VERSION-linux-MACHINE.tar.gz.
# The version is the binary's own (`hookctl --version`, kept in CommandLineTool.swift). The .deb's
# libc6 minimum is the newest GLIBC_ symbol version the binary references. Both files are
# reproducible: fixed owners, sorted entries, timestamps from the last commit (SOURCE_DATE_EPOCH).
set -eu

die() { printf 'package: error: %s\n' "$*" >&2; exit "${2:-1}"; }
[ $# -eq 3 ] || die "usage: sh .install/package.sh BINARY SOURCE_TREE OUTPUT_DIR" 64
binary=$1 root=$2 out=$3
[ -x "$binary" ] || die "$binary is not an executable"
for tool in dpkg-deb readelf gzip tar; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is needed to package: sudo apt-get install dpkg-dev binutils gzip tar" 69
done

version=$("$binary" --version | sed -n 's/^hookctl //p')
[ -n "$version" ] || die "$binary --version did not say its version"
debarch=$(dpkg --print-architecture)
machine=$(uname -m)
# The newest glibc symbol version the binary needs (e.g. GLIBC_2.34 -> 2.34).
glibc=$(readelf --wide --version-info "$binary" | sed -n 's/.*Name: GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
[ -n "$glibc" ] || die "cannot find the glibc version $binary needs (readelf --version-info)"
if readelf --wide --dynamic "$binary" | grep -q 'NEEDED.*libswift'; then
    die "$binary needs the Swift runtime libraries: package a release build (--static-swift-stdlib)"
fi
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

copyright() {
    cat <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: hookctl
Comment: hookctl has no licence file yet; until it has one, all rights are reserved by its authors.

Files: *
Copyright: 2026 the hookctl authors
License: all-rights-reserved

License: all-rights-reserved
 No licence is granted yet. The authors reserve all rights.
EOF
}

# Files every layout shares: the binary, the agent manifests and templates, the README.
stage_data() { # DESTINATION_SHARE_HOOKCTL
    mkdir -p "$1/hooks" "$1/templates"
    cp "$root"/hooks/*.json "$root"/hooks/README.md "$1/hooks/"
    cp "$root"/templates/hook.sh "$root"/templates/config.yaml "$root"/templates/messages.json "$1/templates/"
    chmod 644 "$1"/hooks/* "$1"/templates/*
}

# Man pages and shell completions, when this hookctl can make them
# (`hookctl completion bash|zsh|fish`, `hookctl help --man` for hookctl(1) and
# `hookctl help config --man` for hookctl-config(5)). Each is added only when the binary makes it,
# so packaging works before and after.
add_manuals_and_completions() { # USR_ROOT
    generated() { # FILE COMMAND...: true when COMMAND wrote a non-empty FILE
        local file=$1; shift
        mkdir -p "${file%/*}"
        "$binary" "$@" >"$file" 2>/dev/null && [ -s "$file" ] || { rm -f "$file"; return 1; }
    }
    generated "$work/completion/bash" completion bash &&
        install -D -m 644 "$work/completion/bash" "$1/share/bash-completion/completions/hookctl"
    generated "$work/completion/zsh" completion zsh &&
        install -D -m 644 "$work/completion/zsh" "$1/share/zsh/vendor-completions/_hookctl"
    generated "$work/completion/fish" completion fish &&
        install -D -m 644 "$work/completion/fish" "$1/share/fish/vendor_completions.d/hookctl.fish"
    generated "$work/man/hookctl.1" help --man || true
    generated "$work/man/hookctl-config.5" help config --man || true
    for page in "$work"/man/*.[1-8]; do
        [ -f "$page" ] || continue
        section=${page##*.}
        mkdir -p "$1/share/man/man$section"
        gzip -9n <"$page" >"$1/share/man/man$section/${page##*/}.gz"
        chmod 644 "$1/share/man/man$section/${page##*/}.gz"
    done
    return 0
}

# 1. The .deb: /usr/bin/hookctl, /usr/share/hookctl/{hooks,templates}, /usr/share/doc/hookctl.
deb="$work/deb"
mkdir -p "$deb/DEBIAN" "$deb/usr/bin" "$deb/usr/share/doc/hookctl"
install -m 755 "$binary" "$deb/usr/bin/hookctl"
stage_data "$deb/usr/share/hookctl"
gzip -9n <"$root/README.md" >"$deb/usr/share/doc/hookctl/README.md.gz"
copyright >"$deb/usr/share/doc/hookctl/copyright"
{
    printf 'hookctl (%s) unstable; urgency=medium\n\n' "$version"
    printf '  * Release %s, packaged from the source tree by install.sh --package.\n\n' "$version"
    printf ' -- hookctl maintainers <hookctl@users.noreply.github.com>  %s\n' "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$deb/usr/share/doc/hookctl/changelog.gz"
add_manuals_and_completions "$deb/usr"
# hook.sh is a template setup renders into each user's hook script, not a script to run.
mkdir -p "$deb/usr/share/lintian/overrides"
echo "hookctl: script-not-executable [usr/share/hookctl/templates/hook.sh]" >"$deb/usr/share/lintian/overrides/hookctl"
chmod 644 "$deb/usr/share/lintian/overrides/hookctl"
chmod 644 "$deb/usr/share/doc/hookctl"/*

cat >"$deb/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    echo "hookctl is installed. It changed no user's files: each user who wants the agents' hooks runs"
    echo "    hookctl setup --notify-url-file -     (then paste the phone's notify URL and press Enter)"
    echo "or 'hookctl setup' to record events locally only. 'hookctl doctor' checks everything."
fi
EOF
chmod 755 "$deb/DEBIAN/postinst"
installed_size=$(du -sk --apparent-size "$deb/usr" | cut -f1)
cat >"$deb/DEBIAN/control" <<EOF
Package: hookctl
Version: $version
Architecture: $debarch
Maintainer: hookctl maintainers <hookctl@users.noreply.github.com>
Installed-Size: $installed_size
Depends: libc6 (>= $glibc), libcurl4 | libcurl4t64, libgcc-s1, libstdc++6, libyaml-0-2
Recommends: tmux
Section: utils
Priority: optional
Description: agent hooks, tmux sessions and phone notifications for coding agents
 hookctl installs Claude Code's, Codex's and Gemini CLI's hooks, gated on the
 SSHIDO_SESSION variable of the phone's SSH sessions, delivers their events to
 the phone's push relay and other sinks without losing one, keeps the phone's
 tmux session, and shows which agents need attention (hookctl status).
 .
 Installing the package changes no user's files: each user runs hookctl setup.
EOF
(cd "$deb" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$deb/DEBIAN/md5sums"
chmod 644 "$deb/DEBIAN/control" "$deb/DEBIAN/md5sums"
find "$deb" -type d -exec chmod 755 {} +
find "$deb" -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
deb_file="$out/hookctl_${version}_${debarch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$deb" "$deb_file" >/dev/null

# 2. The tarball: the source tree's layout (install.sh, README.md, hooks/, templates/) plus bin/hookctl,
#    so the same install.sh installs it without Swift.
name="hookctl-$version-linux-$machine"
tree="$work/$name"
mkdir -p "$tree/bin"
install -m 755 "$binary" "$tree/bin/hookctl"
install -m 755 "$root/install.sh" "$tree/install.sh"
install -m 644 "$root/README.md" "$tree/README.md"
install -D -m 755 "$root/scripts/install-extras.sh" "$tree/scripts/install-extras.sh"
copyright >"$tree/copyright"
stage_data "$tree"
find "$tree" -type d -exec chmod 755 {} +
tar_file="$out/$name.tar.gz"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" -C "$work" -cf - "$name" | gzip -9n >"$tar_file"

printf '%s\n' "$deb_file" "$tar_file"
