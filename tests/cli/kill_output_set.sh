#!/usr/bin/env bash
# A command's outputs are one set: `hetperf predict` writing --out, --csv and --timeline-csv is killed
# with SIGKILL at random points of its run, and each time the three targets are either all the files
# the user had or all the complete new ones, byte for byte; or, killed between two renames, the
# journals are there and the next writer of the set completes it before anything else (lib/kill_set.sh,
# shared with the other commands' kill_*_set.sh). HETPERF_KILLS sets how many points (default 10);
# HETPERF_KILL_SEED the seed they are drawn from.
set -uo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
source "$src/tests/cli/lib/kill_set.sh"
platform=$src/benchmarks/scale/profile-1000.json
scale=1
[[ -n ${HETPERF_SANITIZED:-} ]] && scale=3
cat >w.json <<JSON
{"schema": "hetperf.workload/1", "seed": 3, "policy": {"placement": "least_loaded"},
 "generators": [{"process": {"name": "job", "mi": {"distribution": "exponential", "mean": 20000}},
                 "interarrival_s": {"distribution": "exponential", "mean": 0.0025}, "count": $((20000 / scale))}]}
JSON
targets=(p.json p.csv t.csv)
new_command=("$hetperf" predict --platform "$platform" --workload w.json --out p.json --csv p.csv --timeline-csv t.csv --seed 2)
old_run() { "$hetperf" predict --platform "$platform" --workload w.json --out p.json --csv p.csv --timeline-csv t.csv --seed 1; }
new_run() { "${new_command[@]}"; }
kill_set_check predict
