#!/usr/bin/env bash
# The C++ sources (tests included) are formatted with the root's .clang-format: clang-format --dry-run
# names every file and line it would change. To format: clang-format -i FILE...
# Usage: format.sh SOURCE_DIR     (exit 0 formatted, 1 not, 77 without clang-format)
set -euo pipefail
root=$1
command -v clang-format >/dev/null || { echo "skipped: clang-format not installed (scripts/setup installs it)"; exit 77; }
cd "$root"
mapfile -t files < <(find . -path './build*' -prune -o -path ./.git -prune -o -path ./.hetperf -prune -o \
  -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cc' \) -print | sed 's|^\./||' | sort)
clang-format --version
report=$(mktemp)
trap 'rm -f "$report"' EXIT
if ! clang-format --dry-run --Werror "${files[@]}" 2>"$report"; then
  grep -E ": error: " "$report" | sed -E 's/:[0-9]+:[0-9]+: error: .*//' | sort -u | sed 's/^/not formatted: /'
  echo "FAIL: run clang-format -i on the files named above"
  exit 1
fi
echo "${#files[@]} C++ files formatted with .clang-format"
