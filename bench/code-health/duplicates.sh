#!/bin/bash
# Pairs of places that repeat six or more lines (the `duplicates` command of the team's tool library),
# counted three ways so growth and clean-up can be told apart:
#   1. the tree at BASE as it was (the tree the code-health measure was first taken on);
#   2. the files of that tree that still exist, as they are now (what the clean-up did to that code);
#   3. the whole tree now (including every file added since).
# Usage: bench/code-health/duplicates.sh [BASE]   (default 150c361, the first version)
set -euo pipefail
command -v duplicates >/dev/null || { echo "needs the 'duplicates' command on PATH" >&2; exit 2; }
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
base=${1:-150c361}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/then" "$work/same"
git -C "$root" archive "$base" | tar -x -C "$work/then"
kept=0; total=0
while IFS= read -r file; do
    total=$((total + 1))
    if [ -f "$root/$file" ]; then
        mkdir -p "$work/same/$(dirname "$file")"
        cp "$root/$file" "$work/same/$file"
        kept=$((kept + 1))
    fi
done < <(git -C "$root" ls-tree -r --name-only "$base")
count() { duplicates --repo "$1" --seconds 300 | head -1; }
echo "1. $base as it was:                 $(count "$work/then")"
echo "2. its $kept of $total files as they are now: $(count "$work/same")"
echo "3. the whole tree now:              $(cd "$root" && count "$root")"
