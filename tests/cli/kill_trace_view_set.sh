#!/usr/bin/env bash
# `hetperf trace-view` writes its picture (--out) and the events as CSV (--csv) as one set: killed with
# SIGKILL at random points of its run (mostly gnuplot drawing), the two are both the user's previous
# files or both the complete new ones, or the journals say the kill fell between the two renames and
# the next writer of either completes the set (lib/kill_set.sh). HETPERF_KILLS sets how many points
# (default 10), HETPERF_KILL_SEED the seed they are drawn from.
set -uo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
command -v gnuplot >/dev/null || { echo "skipped: gnuplot not found (install gnuplot-nox)"; exit 77; }
source "$src/tests/cli/lib/kill_set.sh"
# Two synthetic traces (fixed seeds) of 8 ranks with 1,500 operations each: a picture of some 12,000
# boxes, long enough to draw for kills to land inside the run.
python3 - <<'PY'
import json, random
for name, seed in (("old.json", 1), ("new.json", 2)):
    r = random.Random(seed)
    ranks = []
    for k in range(8):
        t, events = 0.0, []
        for i in range(1500):
            d = r.expovariate(1000)
            events.append({"op": r.choice(["getrf", "trsm", "gemm", "laswp"]), "start_s": round(t, 9),
                           "end_s": round(t + d, 9), "iteration": i // 50, "dims": [48, 48, 48]})
            t += d + r.expovariate(5000)
        ranks.append({"rank": k, "events": events})
    json.dump({"schema": "hetperf.trace/1", "app": "lu", "backend": "sim",
               "config": {"n": 96, "r": 48, "variant": "basic"}, "summary": {"factorization_s": 1.0},
               "ranks": ranks}, open(name, "w"))
PY
targets=(gantt.png events.csv)
new_command=("$hetperf" trace-view new.json --out gantt.png --csv events.csv)
old_run() { "$hetperf" trace-view old.json --out gantt.png --csv events.csv; }
new_run() { "${new_command[@]}"; }
kill_set_check trace-view
