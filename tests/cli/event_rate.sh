#!/usr/bin/env bash
# Every simulation reports its events: `summary.events` in the output of predict (processes and
# application jobs alike) and schedule, and on stderr the same count with the rate the CLI measured.
# The rate is never in an output file: two runs of the same inputs stay byte-identical.
set -euo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
# "hetperf COMMAND: N events in S s of simulation, R events/s" -> N
events_on_stderr() {
  grep -E "^hetperf $1: [0-9]+ events in [0-9.e+-]+ s of simulation, " "$2" | sed -E 's/^[^:]*: ([0-9]+) events.*/\1/'
}
summary_events() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary']['events'])" "$1"; }

cat >profile.json <<'JSON'
{"schema": "hetperf.profile/1", "computers": [{"name": "c", "count": 4, "cores": 1, "mips": 1000, "main_memory_mb": 4096,
  "disk_read_bytes_per_s": 1e8, "disk_write_bytes_per_s": 1e8, "overhead_latency_s": 1e-6,
  "kernels": [{"kernel": "dgemm", "powers": [3], "coefficients_s": [2e-10]},
              {"kernel": "dtrsm", "powers": [3], "coefficients_s": [1e-10]},
              {"kernel": "dgetrf", "powers": [3], "coefficients_s": [1e-10]},
              {"kernel": "dlaswp", "powers": [2], "coefficients_s": [1e-9]}]}],
 "network": {"latency_s": 1e-6, "bandwidth_bytes_per_s": 2e9}}
JSON
echo '{"schema": "hetperf.workload/1", "apps": [{"name": "lu", "app": "lu", "ranks": 4, "n": 512, "r": 64}]}' >apps.json
for run in 1 2; do
  "$hetperf" predict -p profile.json -w apps.json -o "apps-$run.json" >/dev/null 2>"apps-$run.err" || fail "predict: $(cat "apps-$run.err")"
done
n=$(events_on_stderr predict apps-1.err)
[[ -n $n && $n -gt 0 ]] || fail "no event count on stderr for an application job: $(cat apps-1.err)"
[[ $(summary_events apps-1.json) == "$n" ]] || fail "summary.events $(summary_events apps-1.json), stderr $n"
cmp <(grep -v '"command"' apps-1.json) <(grep -v '"command"' apps-2.json) || fail "two runs differ"

head -n 400 "$src/tests/data/swf/NASA-iPSC-1993-3.1-cln.first1500.swf" >trace.swf
for run in 1 2; do
  "$hetperf" schedule --swf trace.swf --policy conservative --out "schedule-$run.json" >/dev/null 2>"schedule-$run.err"
done
n=$(events_on_stderr schedule schedule-1.err)
[[ -n $n && $n -gt 0 ]] || fail "no event count on stderr for a schedule: $(cat schedule-1.err)"
[[ $(summary_events schedule-1.json) == "$n" ]] || fail "summary.events $(summary_events schedule-1.json), stderr $n"
cmp <(grep -v '"command"' schedule-1.json) <(grep -v '"command"' schedule-2.json) || fail "two runs differ"
echo "event rate: ok"
