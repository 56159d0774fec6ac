/// The shell scripts `deploy` runs on a host, and the one fixed command line that starts them.
///
/// Nothing variable ever goes on the remote command line (which the remote shell parses and `ps`
/// shows): ssh runs the constant `bootstrap`, which reads a script of announced length from standard
/// input and evaluates it; the script then reads its request (mode, agents, the notify URL, files)
/// from the same stream. `read` takes a pipe byte by byte and `head -c N` reads exactly N bytes, so
/// the script, the header lines and each file are taken apart exactly. The scripts print `key=value`
/// lines; a `--- json ---` line is followed by hookctl's own JSON report.
package enum RemoteScripts {
    /// What ssh asks the remote login shell to run. Single-quoted, one line, no `!`: the same in
    /// sh, bash, zsh, fish and csh.
    package static let bootstrap =
        #"/bin/sh -c 'IFS= read -r n && case $n in ""|*[!0-9]*) exit 64;; esac && s=$(head -c "$n") && eval "$s"'"#

    /// Standard input for the bootstrap: the script's length, the script, then the rest.
    package static func input(script: String, then rest: [UInt8] = []) -> [UInt8] {
        let body = Array(script.utf8)
        return Array("\(body.count)\n".utf8) + body + rest
    }

    /// Reports the host's machine, glibc, which of `libraries` the dynamic linker knows (for the given
    /// ldconfig tag, e.g. `libc6,x86-64`), apt's name for each missing one, and the installed copy.
    package static func probe(libraries: [(soname: String, packages: [String])], ldconfigTag: String) -> String {
        var script = #"""
        LC_ALL=C; export LC_ALL
        prefix=$HOME/.local
        echo "arch=$(uname -m)"
        g=$(getconf GNU_LIBC_VERSION 2>/dev/null); echo "glibc=${g#glibc }"
        ldconfig=/sbin/ldconfig; [ -x "$ldconfig" ] || ldconfig=ldconfig
        cache=$("$ldconfig" -p 2>/dev/null)
        have() { case $cache in *"$1 (\#(ldconfigTag)"*) return 0;; esac; return 1; }
        known() { command -v apt-cache >/dev/null 2>&1 && apt-cache show --no-all-versions "$1" >/dev/null 2>&1; }

        """#
        for library in libraries {
            let packages = library.packages.joined(separator: " ")
            script += "if have \(library.soname); then echo \"have=\(library.soname)\"; else echo \"missing=\(library.soname)\"; "
            script += "for p in \(packages); do if known \"$p\"; then echo \"apt=\(library.soname):$p\"; break; fi; done; fi\n"
        }
        script += #"""
        if [ -x "$prefix/bin/hookctl" ]; then v=$("$prefix/bin/hookctl" --version 2>/dev/null | head -n 1); echo "version=${v#hookctl }"; fi
        if cd "$prefix" 2>/dev/null; then
            for f in bin/hookctl share/hookctl/hooks/* share/hookctl/templates/*; do
                [ -f "$f" ] && echo "sum=$(sha256sum < "$f" | cut -c 1-64) $f"
            done
        fi
        echo "probe=done"

        """#
        return script
    }

    /// Installs (or uninstalls) under `~/.local` and runs setup. Reads, after itself: the mode
    /// (`install` or `uninstall`), the agents list, the notify URL, the number of files, then per file
    /// a `MODE SIZE PATH` line and its bytes. Files are staged next to their place and renamed into it,
    /// the binary last, so a hook starting at any moment runs either the old copy or the new one.
    package static let apply = #"""
    LC_ALL=C; export LC_ALL
    umask 022
    prefix=$HOME/.local
    fail() { echo "error=$*"; exit 1; }
    IFS= read -r mode && IFS= read -r agents && IFS= read -r url && IFS= read -r count || fail "the request was cut short"
    case $count in ""|*[!0-9]*) fail "the request is malformed";; esac
    work=$(mktemp -d) || fail "cannot create a temporary folder"
    stage=
    trap 'rm -rf "$work" ${stage:+"$stage"}' EXIT
    set --
    [ -z "$agents" ] || set -- --agents "$agents"
    if [ -x "$prefix/bin/hookctl" ]; then v=$("$prefix/bin/hookctl" --version 2>/dev/null | head -n 1); echo "version_before=${v#hookctl }"; fi

    if [ "$mode" = uninstall ]; then
        rc=0
        if [ -x "$prefix/bin/hookctl" ]; then
            "$prefix/bin/hookctl" uninstall --json "$@" </dev/null >"$work/out" 2>"$work/err"; rc=$?
        fi
        # With --agents only those agents' hooks go; the others still need hookctl.
        if [ "$rc" = 0 ] && [ -z "$agents" ]; then
            rm -f "$prefix/bin/hookctl" || fail "cannot remove $prefix/bin/hookctl"
            rm -rf "$prefix/share/hookctl/hooks" "$prefix/share/hookctl/templates"
            # The folder is also setup's data folder: it goes only when nothing else is left in it.
            rmdir "$prefix/share/hookctl" 2>/dev/null
            echo "removed=yes"
        fi
        echo "status=$rc"
        echo "stderr=$(tail -n 3 "$work/err" 2>/dev/null | tr '\n' ' ')"
        echo "--- json ---"
        cat "$work/out" 2>/dev/null
        exit 0
    fi

    if [ "$count" -gt 0 ]; then
        mkdir -p "$prefix/bin" "$prefix/share/hookctl" || fail "cannot create $prefix/bin and $prefix/share/hookctl"
        stage=$(mktemp -d "$prefix/share/hookctl/.deploy.XXXXXX") || fail "cannot create a staging folder in $prefix/share/hookctl"
        i=0
        while [ "$i" -lt "$count" ]; do
            IFS=' ' read -r fmode size path || fail "the request was cut short"
            case $path in ""|/*|*..*) fail "the request names a bad path";; esac
            case $size in ""|*[!0-9]*) fail "the request is malformed";; esac
            mkdir -p "$stage/${path%/*}" || fail "cannot create $stage"
            head -c "$size" >"$stage/$path" || fail "cannot write $stage/$path"
            [ "$(wc -c <"$stage/$path")" -eq "$size" ] || fail "the transfer was cut short"
            chmod "$fmode" "$stage/$path"
            i=$((i + 1))
        done
        "$stage/bin/hookctl" --version >"$work/version" 2>&1 ||
            fail "the new binary does not run on this host: $(head -c 300 "$work/version" | tr '\n' ' ')"
        for d in hooks templates; do
            [ -d "$stage/share/hookctl/$d" ] || continue
            if [ -e "$prefix/share/hookctl/$d" ]; then mv "$prefix/share/hookctl/$d" "$stage/old-$d" || fail "cannot replace $prefix/share/hookctl/$d"; fi
            mv "$stage/share/hookctl/$d" "$prefix/share/hookctl/$d" || fail "cannot install $prefix/share/hookctl/$d"
        done
        next="$prefix/bin/.hookctl.deploy.$$"
        mv "$stage/bin/hookctl" "$next" && mv -f "$next" "$prefix/bin/hookctl" || { rm -f "$next"; fail "cannot replace $prefix/bin/hookctl"; }
        echo "replaced=yes"
    fi
    [ -x "$prefix/bin/hookctl" ] || fail "hookctl is not installed in $prefix/bin"
    v=$("$prefix/bin/hookctl" --version 2>/dev/null | head -n 1); echo "version_after=${v#hookctl }"
    if [ -n "$url" ]; then
        printf '%s\n' "$url" | "$prefix/bin/hookctl" setup --json "$@" --notify-url-file - >"$work/out" 2>"$work/err"; rc=$?
    else
        "$prefix/bin/hookctl" setup --json "$@" </dev/null >"$work/out" 2>"$work/err"; rc=$?
    fi
    echo "status=$rc"
    echo "stderr=$(tail -n 3 "$work/err" | tr '\n' ' ')"
    echo "--- json ---"
    cat "$work/out"

    """#
}
