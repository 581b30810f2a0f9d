#!/usr/bin/env bash
# `hetperf validate` writes the fitted profile, validation.csv, .md and .json and the pictures as one
# set. A replay (--replay, which runs nothing) of a few recorded runs is killed with SIGKILL at random
# points of its run: the targets are all the user's previous files or all the complete new ones, or the
# journals say the kill fell between two renames and the next writer of any one completes the set
# (lib/kill_set.sh). HETPERF_KILLS sets how many points (default 10), HETPERF_KILL_SEED the seed they
# are drawn from.
set -uo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
source "$src/tests/cli/lib/kill_set.sh"
# Two recordings of the same machine, cut to one run of LU, LU with a removal and integration (the whole
# matrix takes a minute to predict), with 20 sampled predictions each instead of 100: a run of about a
# second, the same reports and pictures, with other numbers in every one.
for r in old:2026-11-27-repeat3 new:2026-11-27-full; do
  mkdir "${r%%:*}"
  cp "$src/results/vm/${r#*:}/profile.json" "${r%%:*}/"
  python3 - "$src/results/vm/${r#*:}/validation.json" "${r%%:*}/validation.json" <<'PY' || kill_set_fail "cannot cut ${r#*:}"
import json, sys
v = json.load(open(sys.argv[1]))
groups, runs = set(), []
for run in v["runs"]:
    if run["group"] in ("lu", "lu-removal", "integrate") and run["group"] not in groups:
        groups.add(run["group"])
        runs.append(run)
v["runs"] = runs
json.dump(v, open(sys.argv[2], "w"))
PY
done
validate() { "$hetperf" validate --replay "$1" --out v --max-error 1e9 --max-bias 1e9 --min-coverage 0 --samples 20; }
# The set's files: the profile first (renamed first), the reports, and the pictures a replay draws.
validate new >/dev/null 2>&1 || kill_set_fail "the replay failed"
targets=(v/profile.json v/validation.csv v/validation.md v/validation.json $(ls v/*.png 2>/dev/null))
rm -rf v
new_command=("$hetperf" validate --replay new --out v --max-error 1e9 --max-bias 1e9 --min-coverage 0 --samples 20)
old_run() { validate old; }
new_run() { "${new_command[@]}"; }
kill_set_check validate
