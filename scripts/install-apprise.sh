#!/bin/sh
# Installs Apprise (PyPI `apprise`, with `cryptography` for its Pushover E2EE) into a venv in a cache:
# the independent implementation the Pushover tests check hookctl's end-to-end encryption against
# (Tests/HookKitTests/PushoverE2EETests). Idempotent: a venv whose apprise imports is kept.
#
#   scripts/install-apprise.sh [CACHE_DIR]
#
# CACHE_DIR  default /var/tmp/hookctl-apprise (HOOKCTL_APPRISE for the tests names the same place)
# Installs   CACHE_DIR/venv/bin/python with apprise==$APPRISE_VERSION and cryptography
# A wheel already downloaded to /var/tmp/apprise-dl (or APPRISE_WHEELS) is used before PyPI.
set -eu
[ $# -le 1 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }
cache=${1:-/var/tmp/hookctl-apprise}
version=${APPRISE_VERSION:-2.3.0}
wheels=${APPRISE_WHEELS:-/var/tmp/apprise-dl}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
venv="$cache/venv"
python="$venv/bin/python"
if "$python" -c "import apprise, cryptography, sys; sys.exit(apprise.__version__ != '$version')" >/dev/null 2>&1; then
    echo "apprise: $python (apprise $version)"
    exit 0
fi
echo "install-apprise: installing apprise $version into $venv" >&2
python3 -m venv "$venv" || { echo "install-apprise: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 69; }
local_wheel=$(ls "$wheels"/apprise-"$version"-*.whl 2>/dev/null | head -n 1 || true)
"$venv/bin/pip" install --quiet --disable-pip-version-check "${local_wheel:-apprise==$version}" cryptography
"$python" -c "import apprise, cryptography" || { echo "install-apprise: apprise does not import" >&2; exit 70; }
echo "apprise: $python (apprise $version)"
