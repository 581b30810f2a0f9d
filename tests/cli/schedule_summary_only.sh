#!/usr/bin/env bash
# schedule --summary-only keeps the summary (with the median, p90, p99 and max of wait, turnaround and
# bounded slowdown) and streams the per-job rows to --csv as jobs finish: one row per job, the same rows
# and the same summary as a full schedule. The streamed CSV is atomic: an error after the simulation
# leaves the previous file untouched and no temporary file behind.
set -euo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
# The committed excerpt (tests/data/swf/README.md): a plain clone has it.
cp "$src/tests/data/swf/NASA-iPSC-1993-3.1-cln.first1500.swf" trace.swf
"$hetperf" schedule --swf trace.swf --policy easy --out full.json --csv full.csv >/dev/null
"$hetperf" schedule --swf trace.swf --policy easy --out summary.json --csv streamed.csv --summary-only >summary.txt
grep -q "p99" summary.txt || fail "the table on stdout lacks the percentiles: $(cat summary.txt)"
python3 - <<'PY'
import csv, json, math
full, summary = json.load(open("full.json")), json.load(open("summary.json"))
assert summary["jobs"] == [] and summary["utilisation"] == [], "a summary-only schedule keeps no rows"
assert summary["summary"] == full["summary"], (summary["summary"], full["summary"])
s = full["summary"]
for name in ("wait_s", "turnaround_s", "bounded_slowdown"):
    keys = [f"median_{name}", f"p90_{name}", f"p99_{name}", f"max_{name}"]
    values = [s[k] for k in keys]
    assert values == sorted(values), (name, values)
    column = sorted(j[name] for j in full["jobs"])
    rank = lambda p: column[max(1, math.ceil(p * len(column))) - 1]  # nearest rank, as hetperf computes it
    assert (s[f"p90_{name}"], s[f"p99_{name}"], s[f"max_{name}"]) == (rank(0.90), rank(0.99), column[-1]), name
assert s["slowdown_threshold_s"] == 10
rows = lambda f: sorted(tuple(r) for r in csv.reader(open(f)))
assert rows("full.csv") == rows("streamed.csv"), "the streamed rows differ from the full schedule's"
streamed = list(csv.DictReader(open("streamed.csv")))
assert len(streamed) == s["jobs"], (len(streamed), s["jobs"])
ends = [float(r["end_s"]) for r in streamed]
assert ends == sorted(ends), "streamed rows are in finish order"
print(f"summary-only: {len(streamed)} rows streamed, summary identical")
PY
# --out is a directory: the JSON cannot be written after the simulation has streamed every row.
mkdir taken.json
echo previous >rows.csv
set +e
"$hetperf" schedule --swf trace.swf --policy easy --out taken.json --csv rows.csv --summary-only >/dev/null 2>err.txt
rc=$?
set -e
[[ $rc -ne 0 ]] || fail "writing over a directory succeeded"
[[ $(cat rows.csv) == previous ]] || fail "the CSV was replaced despite the error: $(head -c 200 rows.csv)"
leftovers=$(ls -A | grep -v -x -e trace.swf -e full.json -e full.csv -e summary.json -e streamed.csv \
  -e summary.txt -e taken.json -e rows.csv -e err.txt || true)
[[ -z $leftovers ]] || fail "temporary files left behind: $leftovers"
# Outputs that need every job's rows are refused with --summary-only, before anything runs.
set +e
"$hetperf" schedule --swf trace.swf --out x.json --summary-only --swf-out x.swf >/dev/null 2>err.txt
rc=$?
set -e
[[ $rc -eq 2 && ! -e x.json ]] || fail "--summary-only with --swf-out: exit $rc (a usage error is 2)"
echo "schedule summary-only: ok (error exit $rc: $(head -n 1 err.txt))"
