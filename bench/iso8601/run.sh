#!/bin/sh
# ISO 8601: the library's hand-written WallClock.iso8601/parseISO8601 against a Date.ISO8601FormatStyle
# candidate (candidate.swift), side by side in one `swiftc -O` binary (see main.swift).
# Usage: bench/iso8601/run.sh [ROUNDS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The library's own WallClock, copied out of Text.swift.
{ printf 'import FoundationEssentials\nimport Glibc\n'
  sed -n '/^\/\/\/ Wall-clock time helpers/,/^\/\/\/ Durations as the config writes them/p' \
      "$here/../../Sources/HookSupport/Support/Text.swift" | sed '$d'; } > "$work/WallClock.swift"
swiftc -O -o "$work/iso8601" "$here/main.swift" "$here/candidate.swift" "$work/WallClock.swift"
"$work/iso8601" "${1:-7}"
