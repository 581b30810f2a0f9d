#!/usr/bin/env bash
# predict --summary-only keeps the summary and streams the rows to --csv as processes finish: the same
# rows and the same summary as a full prediction; --max-memory refuses an oversized run up front with
# its estimate, exit 2, nothing written.
set -euo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
platform=$src/tests/data/two_computers.json
workload=$src/examples/workloads/quickstart.json
"$hetperf" predict --platform "$platform" --workload "$workload" --out full.json --csv full.csv >/dev/null
"$hetperf" predict --platform "$platform" --workload "$workload" --out summary.json --csv streamed.csv --summary-only >/dev/null
python3 - <<'PY'
import csv, json, sys
full, summary = json.load(open("full.json")), json.load(open("summary.json"))
assert summary["processes"] == [], "a summary-only prediction keeps no rows"
for k in ("mean_response_s", "median_response_s", "p95_response_s", "makespan_s", "events"):
    assert full["summary"][k] == summary["summary"][k], (k, full["summary"][k], summary["summary"][k])
rows = lambda f: sorted(tuple(r) for r in csv.reader(open(f)))
assert rows("full.csv") == rows("streamed.csv"), "the streamed rows differ from the full prediction's"
finish = [float(r["finish_s"]) for r in csv.DictReader(open("streamed.csv"))]
assert finish == sorted(finish), "streamed rows are in finish order"
print(f"summary-only: {len(finish)} rows streamed, summary identical")
PY
# The last generator's processes are drawn as they arrive and, without kept rows, their slots are
# reused: with two generators, listed processes, random placement and migrations the rows and the
# summary are still those of the full prediction.
cat >mixed.json <<JSON
{"schema": "hetperf.workload/1", "seed": 5,
 "policy": {"placement": "random", "load_balancer": {"period_s": 2, "migration_cost_s": 0.1, "threshold": 1.1, "max_migrations": 2}},
 "processes": [{"name": "w", "count": 3, "mi": {"distribution": "exponential", "mean": 8000}, "static_memory_mb": 16}],
 "generators": [
   {"process": {"name": "a", "mi": {"distribution": "exponential", "mean": 3000}, "disk_read": {"ops": 1, "bytes_per_op": 1048576}},
    "interarrival_s": {"distribution": "exponential", "mean": 0.4}, "start_s": 0.5, "count": 40},
   {"process": {"name": "b", "mi": {"distribution": "uniform", "min": 500, "max": 9000}, "messages": {"count": 2, "bytes": 65536}},
    "interarrival_s": {"distribution": "exponential", "mean": 0.3}, "start_s": 0, "horizon_s": 20}]}
JSON
"$hetperf" predict --platform "$platform" --workload mixed.json --out full.json --csv full.csv >/dev/null
"$hetperf" predict --platform "$platform" --workload mixed.json --out summary.json --csv streamed.csv --summary-only >/dev/null
python3 - <<'PY'
import csv, json
full, summary = json.load(open("full.json")), json.load(open("summary.json"))
for k in ("mean_response_s", "median_response_s", "p95_response_s", "makespan_s", "events", "migrations"):
    assert full["summary"][k] == summary["summary"][k], (k, full["summary"][k], summary["summary"][k])
rows = lambda f: sorted(tuple(r) for r in csv.reader(open(f)))
assert rows("full.csv") == rows("streamed.csv"), "the streamed rows differ from the full prediction's"
assert full["summary"]["migrations"] > 0, "the case meant to migrate did not"
print(f"summary-only, drawn as they arrive: {len(rows('full.csv')) - 1} rows, {full['summary']['migrations']} migrations, identical")
PY
cat >big.json <<JSON
{"schema": "hetperf.workload/1", "processes": [{"name": "p", "count": 50000000, "mi": 1}]}
JSON
echo previous >out.json
set +e
"$hetperf" predict --platform "$platform" --workload big.json --out out.json --max-memory 512 2>err.txt
status=$?
set -e
[[ $status -eq 2 ]] || { echo "oversized run: exit $status"; cat err.txt; exit 1; }
grep -q "50000000 processes would take about" err.txt || { echo "message: $(cat err.txt)"; exit 1; }
[[ $(cat out.json) == previous ]] || { echo "the existing output was overwritten"; exit 1; }
echo "max-memory: refused with '$(cat err.txt)'"
# Allocation failure the estimate did not foresee is one message and exit 2, never an abort.
if [[ -n ${HETPERF_SANITIZED:-} ]]; then
  # AddressSanitizer reserves terabytes of address space for its shadow: no ulimit -v under it.
  echo "out of memory: not checked (sanitized build: an address-space limit stops AddressSanitizer itself)"
  exit 0
fi
cat >many.json <<JSON
{"schema": "hetperf.workload/1", "processes": [{"name": "p", "count": 20000000, "mi": 1}]}
JSON
set +e
(ulimit -v 1000000; "$hetperf" predict --platform "$platform" --workload many.json --out out.json --max-memory 100000000 \
  --summary-only) 2>err.txt
status=$?
set -e
[[ $status -eq 2 ]] || { echo "out of memory: exit $status: $(cat err.txt)"; exit 1; }
grep -q "out of memory; nothing was written" err.txt || { echo "message: $(cat err.txt)"; exit 1; }
[[ $(cat out.json) == previous ]] || { echo "the existing output was overwritten"; exit 1; }
echo "out of memory: '$(cat err.txt)'"
