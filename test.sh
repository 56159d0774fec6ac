#!/usr/bin/env bash
# The test command: builds hookctl with its tests and runs them all.
#
#   ./test.sh            as root on Debian/Ubuntu: installs the missing packages first (apt-get update,
#                        then apt-get install) and the real agents, then runs the Swift tests, the package
#                        and deploy tests, and the real-agent tests
#   ./test.sh            as another user: names exactly what to install (and exits 69) when something is
#                        missing; runs the Swift tests; the package tests need root and are skipped
#   ./test.sh --check    only checks what is installed (exit 69 and the apt-get line when something is missing)
#
# Swift itself is not a Debian package: it is looked for on PATH and in /opt/swift/usr/bin.
# A step is one line in main() at the bottom; what a step needs goes in a packages list below.
set -euo pipefail
cd "$(dirname "$0")"

# What the build needs (install.sh has the same list for building alone).
build_packages=(libcurl4-openssl-dev libyaml-dev libssl-dev zlib1g-dev libcmark-gfm-dev libcmark-gfm-extensions-dev pkg-config)
# What the Swift tests run: a real tmux, the loopback receiver (python3), curl, faketime for the clock
# tests, flock/setsid (util-linux), zsh and fish for the completion tests, jsonschema for aider's
# config schema, node for the opencode plugin.
swift_test_packages=(tmux python3 curl ca-certificates faketime util-linux zsh fish python3-jsonschema nodejs
    python3-pip python3-venv git)   # the last three: scripts/install-real-agents.sh (pip download, aider's venv)
# What Tests/package/run.sh runs: Debian roots, lintian, real sshd servers.
package_test_packages=(debootstrap lintian openssh-server openssh-client dpkg-dev binutils xz-utils)

say() { printf 'test.sh: %s\n' "$*" >&2; }

is_root() { [ "$(id -u)" = 0 ]; }

missing_packages() {
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || printf '%s\n' "$package"
    done
}

# Installs (as root) or names (otherwise) the packages of the lists given; returns 69 when some are
# missing and could not be installed.
require_packages() {
    command -v dpkg-query >/dev/null 2>&1 || { say "not a Debian system: install the equivalents of: $*"; return 0; }
    local missing
    mapfile -t missing < <(missing_packages "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    if is_root && [ "${check_only:-0}" = 0 ]; then
        say "installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
        return 0
    fi
    say "missing Debian packages: ${missing[*]}"
    say "install them with: sudo apt-get update && sudo apt-get install -y ${missing[*]}"
    return 69
}

require_swift() {
    export PATH="/opt/swift/usr/bin:$PATH"
    command -v swift >/dev/null 2>&1 && return 0
    say "swift is not installed: get the Swift 6 toolchain for your system from https://www.swift.org/install/linux/"
    say "(unpacked so that /opt/swift/usr/bin/swift exists, or with swift on PATH), then run ./test.sh again"
    return 69
}

# The real agents Tests/RealAgentTests drives (Claude Code from the claude-agent-sdk wheel, aider in a
# venv, Codex from the openai-codex-cli-bin wheel), cached in /var/tmp/hookctl-agents (downloaded from
# PyPI when missing). A step that installs another agent is one more line here.
install_real_agents() {
    scripts/install-real-agents.sh
}

# Apprise (PyPI) in a venv in /var/tmp/hookctl-apprise: the independent implementation of Pushover's
# end-to-end encryption that Tests/EndToEndTests/PushoverEndToEndTests checks hookctl against.
install_apprise() {
    scripts/install-apprise.sh
}

swift_tests() {
    # Each target imports only what Package.swift says it depends on (an upward import is already a
    # module cycle the compiler refuses; this also catches a sideways one).
    swift build --build-tests --explicit-target-dependency-import-check error
    swift test --skip-build --skip RealAgentTests
}

# Timed apart from the other Swift tests: they drive real agents (minutes, a network to the model).
real_agent_tests() {
    swift test --skip-build --filter RealAgentTests
}

package_tests() {
    if ! is_root; then
        say "package and deploy tests skipped: they need root (debootstrap, chroot, sshd): sudo ./test.sh"
        return 0
    fi
    Tests/package/run.sh
}

main() {
    check_only=0
    case "${1:-}" in
        --check) check_only=1 ;;
        "") ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; return 0 ;;
        *) say "unknown option '$1' (./test.sh [--check])"; return 64 ;;
    esac
    local status=0
    local packages=("${build_packages[@]}" "${swift_test_packages[@]}")
    is_root && packages+=("${package_test_packages[@]}")
    require_packages "${packages[@]}" || status=$?
    require_swift || status=$?
    [ "$status" = 0 ] || return "$status"
    [ "$check_only" = 1 ] && { say "everything the tests need is installed"; return 0; }
    install_real_agents
    install_apprise
    swift_tests
    package_tests
    real_agent_tests
}

main "$@"
