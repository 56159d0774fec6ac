#!/bin/sh
# Installs the real agents the real-agent tests drive (Tests/RealAgentTests), from PyPI, into a cache:
# Claude Code (the CLI bundled in the claude-agent-sdk wheel) and aider (a venv with aider-chat).
# Idempotent: what is already in the cache and answers --version is kept, never downloaded again.
#
#   scripts/install-real-agents.sh [CACHE_DIR]
#
# CACHE_DIR  default /var/tmp/hookctl-agents (HOOKCTL_REAL_AGENTS for the tests names the same place)
# Installs   CACHE_DIR/claude                 (Claude Code, from claude-agent-sdk==$CLAUDE_SDK_VERSION)
#            CACHE_DIR/aider-venv/bin/aider   (aider-chat==$AIDER_VERSION)
# The versions are the ones whose behaviour shared/reference/real-agents.md records; override with
# CLAUDE_SDK_VERSION / AIDER_VERSION to try others.
set -eu
[ $# -le 1 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }
cache=${1:-/var/tmp/hookctl-agents}
sdk_version=${CLAUDE_SDK_VERSION:-0.2.189}
aider_version=${AIDER_VERSION:-0.86.2}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# Claude Code: the wheel (~180 MB) is downloaded once; only its bundled CLI is extracted.
claude="$cache/claude"
if ! "$claude" --version >/dev/null 2>&1; then
    wheel=$(ls "$cache"/wheel/claude_agent_sdk-"$sdk_version"-*manylinux*x86_64.whl 2>/dev/null | head -n 1 || true)
    if [ -z "$wheel" ]; then
        echo "install-real-agents: downloading claude-agent-sdk $sdk_version" >&2
        python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_17_x86_64 \
            --python-version 3.11 -d "$cache/wheel" "claude-agent-sdk==$sdk_version"
        wheel=$(ls "$cache"/wheel/claude_agent_sdk-"$sdk_version"-*manylinux*x86_64.whl | head -n 1)
    fi
    echo "install-real-agents: extracting Claude Code from $(basename "$wheel")" >&2
    python3 - "$wheel" "$claude" <<'EOF'
import os, shutil, sys, zipfile
wheel, target = sys.argv[1], sys.argv[2]
partial = target + ".partial"
with zipfile.ZipFile(wheel) as archive, archive.open("claude_agent_sdk/_bundled/claude") as source, \
        open(partial, "wb") as output:
    shutil.copyfileobj(source, output, 1 << 20)
os.chmod(partial, 0o755)
os.replace(partial, target)
EOF
fi

# aider: a venv of its own (many dependencies; a few minutes the first time).
venv="$cache/aider-venv"
aider="$venv/bin/aider"
if ! "$aider" --version >/dev/null 2>&1; then
    echo "install-real-agents: installing aider-chat $aider_version into $venv" >&2
    python3 -m venv "$venv" || { echo "install-real-agents: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 69; }
    "$venv/bin/pip" install --quiet --disable-pip-version-check "aider-chat==$aider_version"
fi

claude_version=$("$claude" --version 2>/dev/null) || { echo "install-real-agents: $claude --version failed" >&2; exit 70; }
aider_said=$("$aider" --version 2>/dev/null | tail -n 1) || { echo "install-real-agents: $aider --version failed" >&2; exit 70; }
echo "claude: $claude ($claude_version)"
echo "aider: $aider ($aider_said)"
