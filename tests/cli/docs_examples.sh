#!/usr/bin/env bash
# Every JSON example in docs/*.md that carries a "schema" is a valid hetperf file: the docs never show
# a file hetperf would reject.
set -euo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count=0
for doc in "$src"/docs/*.md; do
  awk -v dir="$work" -v base="$(basename "$doc" .md)" '
    /^```json$/ { inblock = 1; n++; file = sprintf("%s/%s-%02d.json", dir, base, n); next }
    /^```$/ && inblock { inblock = 0; close(file); next }
    inblock { print > file }
  ' "$doc"
done
for f in "$work"/*.json; do
  [[ -e "$f" ]] || continue
  grep -q '"schema": "hetperf\.' "$f" || continue
  "$hetperf" check "$f" >/dev/null
  count=$((count + 1))
done
[[ $count -ge 4 ]] || { echo "expected at least the 4 examples of docs/formats.md, found $count"; exit 1; }
echo "docs_examples: $count examples valid"
