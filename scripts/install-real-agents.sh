#!/bin/sh
# Installs the real agents the real-agent tests drive (Tests/RealAgentTests), from PyPI, into a cache:
# Claude Code (the CLI bundled in the claude-agent-sdk wheel), aider (a venv with aider-chat) and the
# Codex CLI (the binary bundled in the openai-codex-cli-bin wheel).
# Idempotent: what is already in the cache and answers --version is kept, never downloaded again.
#
#   scripts/install-real-agents.sh [CACHE_DIR]
#
# CACHE_DIR  default /var/tmp/hookctl-agents (HOOKCTL_REAL_AGENTS for the tests names the same place)
# Installs   CACHE_DIR/claude                 (Claude Code, from claude-agent-sdk==$CLAUDE_SDK_VERSION)
#            CACHE_DIR/aider-venv/bin/aider   (aider-chat==$AIDER_VERSION)
#            CACHE_DIR/codex/bin/codex        (openai-codex-cli-bin==$CODEX_VERSION, with its rg and bwrap)
# The versions are the ones whose behaviour shared/reference/real-agents.md and docs/agents.md record;
# override with CLAUDE_SDK_VERSION / AIDER_VERSION / CODEX_VERSION to try others.
set -eu
[ $# -le 1 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }
cache=${1:-/var/tmp/hookctl-agents}
sdk_version=${CLAUDE_SDK_VERSION:-0.2.189}
aider_version=${AIDER_VERSION:-0.86.2}
codex_version=${CODEX_VERSION:-0.163.0}
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

# Codex: the wheel (~140 MB) is downloaded once; the codex_cli_bin/ tree (codex, codex-code-mode-host,
# codex-path/rg, codex-resources/bwrap: codex looks for them beside itself) is extracted into CACHE_DIR/codex.
codex="$cache/codex/bin/codex"
if [ "$("$codex" --version 2>/dev/null)" != "codex-cli $codex_version" ]; then
    wheel=$(ls "$cache"/codex-wheel/openai_codex_cli_bin-"$codex_version"-*manylinux*x86_64.whl 2>/dev/null | head -n 1 || true)
    if [ -z "$wheel" ]; then
        echo "install-real-agents: downloading openai-codex-cli-bin $codex_version" >&2
        python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_17_x86_64 \
            --python-version 3.11 -d "$cache/codex-wheel" "openai-codex-cli-bin==$codex_version"
        wheel=$(ls "$cache"/codex-wheel/openai_codex_cli_bin-"$codex_version"-*manylinux*x86_64.whl | head -n 1)
    fi
    echo "install-real-agents: extracting Codex from $(basename "$wheel")" >&2
    python3 - "$wheel" "$cache/codex" <<'EOF'
import os, shutil, sys, zipfile
wheel, target = sys.argv[1], sys.argv[2]
partial = target + ".partial"
shutil.rmtree(partial, ignore_errors=True)
prefix = "codex_cli_bin/"
with zipfile.ZipFile(wheel) as archive:
    for member in archive.infolist():
        name = member.filename
        if not name.startswith(prefix) or name.endswith("/") or name.endswith(".py"):
            continue
        relative = os.path.normpath(name[len(prefix):])
        if relative.startswith("..") or os.path.isabs(relative):
            sys.exit("install-real-agents: unexpected member " + name)
        path = os.path.join(partial, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with archive.open(member) as source, open(path, "wb") as output:
            shutil.copyfileobj(source, output, 1 << 20)
        os.chmod(path, 0o755 if "/" in relative else 0o644)
shutil.rmtree(target, ignore_errors=True)
os.replace(partial, target)
EOF
fi

claude_version=$("$claude" --version 2>/dev/null) || { echo "install-real-agents: $claude --version failed" >&2; exit 70; }
aider_said=$("$aider" --version 2>/dev/null | tail -n 1) || { echo "install-real-agents: $aider --version failed" >&2; exit 70; }
codex_said=$("$codex" --version 2>/dev/null) || { echo "install-real-agents: $codex --version failed" >&2; exit 70; }
echo "claude: $claude ($claude_version)"
echo "aider: $aider ($aider_said)"
echo "codex: $codex ($codex_said)"
