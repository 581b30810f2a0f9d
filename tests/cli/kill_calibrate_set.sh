#!/usr/bin/env bash
# `hetperf calibrate --plots DIR` writes the profile and every fit's data, script and picture as one
# set: killed with SIGKILL at random points of its run (mostly gnuplot drawing), they are all the
# user's previous files or all the complete new ones, or the journals say the kill fell between two
# renames and the next writer of any one completes the set (lib/kill_set.sh). HETPERF_KILLS sets how
# many points (default 10), HETPERF_KILL_SEED the seed they are drawn from.
set -uo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
command -v gnuplot >/dev/null || { echo "skipped: gnuplot not found (install gnuplot-nox)"; exit 77; }
source "$src/tests/cli/lib/kill_set.sh"
# Two recorded measurements of the same machine: the same fits, so the same plot files, with other
# numbers in every one. Cut to one kernel (dgemm): four fits, 16 plot files and a run of about half a
# second instead of ten fits drawn in 1.3 s.
for m in old:2026-11-27-repeat3 new:2026-11-27-full; do
  python3 - "$src/results/vm/${m#*:}/measurement.json" "${m%%:*}.json" <<'PY' || kill_set_fail "cannot cut ${m#*:}"
import json, sys
m = json.load(open(sys.argv[1]))
m["probes"]["cpu"]["kernels"] = [k for k in m["probes"]["cpu"]["kernels"] if k["kernel"] == "dgemm"]
json.dump(m, open(sys.argv[2], "w"))
PY
done
old=old.json new=new.json
# A profile is the same but for the time it was made.
same() {
  if [[ $1 == *.json ]]; then cmp -s <(grep -v '"created_utc"' "$1") <(grep -v '"created_utc"' "$2"); else cmp -s "$1" "$2"; fi
}
# The set's files: the profile first (renamed first), then the plots a run writes.
"$hetperf" calibrate "$new" --out names/profile.json --plots names/plots >/dev/null 2>&1 || kill_set_fail "calibrate failed"
targets=(profile.json $(cd names && ls plots/*))
rm -rf names
((${#targets[@]} > 4)) || kill_set_fail "calibrate drew no plots: ${targets[*]}"
new_command=("$hetperf" calibrate "$new" --out profile.json --plots plots)
old_run() { "$hetperf" calibrate "$old" --out profile.json --plots plots; }
new_run() { "${new_command[@]}"; }
kill_set_check calibrate
