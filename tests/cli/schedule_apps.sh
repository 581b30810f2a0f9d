#!/usr/bin/env bash
# hetperf schedule with application models: a malleable LU job and a rigid integration job
# whose iteration times are simulated on a profile, under ReSHAPE; without --platform they are
# refused (exit 2, the JSON path named, nothing written).
set -uo pipefail
hetperf=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
cat >profile.json <<'JSON'
{"schema": "hetperf.profile/1", "computers": [{"name": "node", "count": 4, "cores": 2, "mips": 1000,
  "main_memory_mb": 4096, "disk_read_bytes_per_s": 1e8, "disk_write_bytes_per_s": 1e8, "overhead_latency_s": 1e-5,
  "kernels": [{"kernel": "dgemm", "powers": [3], "coefficients_s": [2e-10]},
              {"kernel": "dtrsm", "powers": [3], "coefficients_s": [1e-10]},
              {"kernel": "dgetrf", "powers": [3], "coefficients_s": [1e-10]},
              {"kernel": "dlaswp", "powers": [2], "coefficients_s": [1e-9]}],
  "integration_step_s": 2e-8}],
 "network": {"latency_s": 1e-5, "bandwidth_bytes_per_s": 1e9}}
JSON
cat >w.json <<'JSON'
{"schema": "hetperf.workload/1", "scheduler": {"policy": "reshape"}, "jobs": [
  {"name": "lu", "type": "malleable", "processors": 2, "app": {"kind": "lu", "n": 4096, "r": 256, "iterations": 8},
   "resize": {"max_processors": 8}},
  {"name": "int", "type": "rigid", "submit_s": 1, "processors": 3, "app": {"kind": "integrate", "steps": 100000000}}]}
JSON
"$hetperf" schedule -w w.json --platform profile.json --out s.json --allocation-csv alloc.csv >out.txt 2>&1 ||
  fail "schedule with app models: $(cat out.txt)"
grep -q '"name": "lu"' s.json || fail "no lu job in the schedule"
[[ $(grep -c ',lu,' alloc.csv) -ge 3 ]] || fail "the malleable LU job was never resized: $(cat alloc.csv)"
msg=$("$hetperf" schedule -w w.json --processors 8 --out none.json 2>&1 >/dev/null); rc=$?
[[ $rc -eq 2 ]] || fail "exit $rc without --platform"
grep -q '\$.jobs\[0\].app.kind' <<<"$msg" || fail "error does not name the field: $msg"
[[ ! -e none.json ]] || fail "output written on error"
# An LU model whose table would take no plausible time (n / r = 20,480 iterations, 1.7e9 simulated
# operations on one core, 1.3e10 for the table up to 8 cores): refused before any simulation,
# naming the job's app.
sed 's/"n": 4096, "r": 256/"n": 327680, "r": 16/' w.json >huge.json
msg=$(timeout 60 "$hetperf" schedule -w huge.json --platform profile.json --out huge-out.json 2>&1 >/dev/null); rc=$?
[[ $rc -eq 2 ]] || fail "exit $rc for a table of no plausible time: $msg"
grep -q 'huge.json: \$.jobs\[0\].app: expected application models whose tables' <<<"$msg" || fail "error does not name the app: $msg"
[[ ! -e huge-out.json ]] || fail "output written on error"
echo "schedule_apps: ok"
