#!/usr/bin/env bash
# `hetperf schedule` writes up to nine outputs as one set: --out, --csv, --allocation-csv, --swf-out and
# the --plot-dir's data, script and pictures. Killed with SIGKILL at random points of its run, they are
# all the user's previous files or all the complete new ones, or the journals say the kill fell between
# two renames and the next writer of any one of them completes the set (lib/kill_set.sh).
# HETPERF_KILLS sets how many points (default 10), HETPERF_KILL_SEED the seed they are drawn from.
set -uo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
source "$src/tests/cli/lib/kill_set.sh"
# Two synthetic SWF traces (fixed seeds) of 6,000 jobs on 128 processors (2,000 under the sanitizers):
# long enough a run for kills to land inside it, different in every output.
python3 - <<'PY'
import os, random
scale = 3 if os.environ.get("HETPERF_SANITIZED") else 1
for name, seed in (("old.swf", 11), ("new.swf", 12)):
    r = random.Random(seed)
    with open(name, "w") as f:
        f.write("; MaxProcs: 128\n")
        t = 0
        for j in range(1, 6000 // scale + 1):
            t += int(r.expovariate(1 / 60))
            run = int(r.expovariate(1 / 1800)) + 1
            procs = r.choice([1, 2, 4, 8, 16, 32, 64])
            f.write(f"{j} {t} -1 {run} {procs} -1 -1 {procs} {run * 2} -1 1 1 1 -1 1 -1 -1 -1\n")
PY
targets=(s.json s.csv a.csv s.swf plots/allocation.dat plots/busy.dat plots/plots.gp)
# The pictures, when gnuplot is there to draw them.
command -v gnuplot >/dev/null && targets+=(plots/allocation.png plots/busy.png)
schedule() {
  "$hetperf" schedule --swf "$1" --policy "$2" --out s.json --csv s.csv --allocation-csv a.csv --swf-out s.swf \
    --plot-dir plots --rows 0
}
new_command=("$hetperf" schedule --swf new.swf --policy easy --out s.json --csv s.csv --allocation-csv a.csv
  --swf-out s.swf --plot-dir plots --rows 0)
old_run() { schedule old.swf fcfs; }
new_run() { "${new_command[@]}"; }
kill_set_check schedule

# The writer's own child outlives it: killed while gnuplot draws, the next writer must still find the
# dead writer's temporaries unclaimed and remove them (a descriptor gnuplot inherited would hold their
# locks, and they would be left behind). A stand-in for gnuplot first on PATH says when it has started
# and then sleeps, so that it is surely still there when the writer is killed.
mkdir stand-in
cat >stand-in/gnuplot <<SH
#!/usr/bin/env bash
echo \$\$ >$work/gnuplot-started
exec sleep 60
SH
chmod +x stand-in/gnuplot
PATH=$work/stand-in:$PATH "${new_command[@]}" >/dev/null 2>&1 &
pid=$!
until [[ -s gnuplot-started ]]; do kill -0 "$pid" 2>/dev/null || kill_set_fail "schedule: the stand-in gnuplot never ran"; done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
new_run >/dev/null 2>&1 || kill_set_fail "schedule: the run after the kill failed"
leftovers=$({ ls -A .; ls -A plots; } | grep '^\.' | grep -v '^\.kill-set$')
kill "$(cat gnuplot-started)"
[[ -z $leftovers ]] || kill_set_fail "schedule: killed while gnuplot drew, the next writer left" $leftovers
echo "schedule: killed while gnuplot drew, the next writer removed what it left"
