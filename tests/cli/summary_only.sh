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
