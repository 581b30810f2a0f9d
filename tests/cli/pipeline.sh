#!/usr/bin/env bash
# probe -> calibrate -> predict on this machine with small settings; outputs exist and parse, the
# disk probe leaves no scratch file behind.
set -euo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# Each step says what failed, with what the command printed.
fail() { echo "FAIL: $1"; shift; for f in "$@"; do echo "--- $f"; cat "$f"; done; exit 1; }
# The memory curve in a 32 MB cgroup, one ascent: the quick probe's steps at a fraction of its time
# (the curve's own checks are the probes' memory tests, with the quick probe's 128 MB).
"$hetperf" probe --quick --disk-size 4194304 --time-cap 0.5 --memory-limit 32 --memory-passes 1 --dir "$work" \
  --machine testbox --out m.json >probe.txt
grep -q "MIPS" probe.txt || fail "probe printed no MIPS" probe.txt
[[ -z $(ls -A "$work" | grep -v -E '^(m.json|probe.txt)$') ]] || { echo "probe left files behind:"; ls -A "$work"; exit 1; }
"$hetperf" calibrate m.json --out platform.json >cal.txt 2>cal.err || fail "calibrate failed" cal.txt cal.err
grep -q "testbox" cal.txt || fail "calibrate printed no testbox" cal.txt cal.err
# --report of a computer whose disk was not probed (as a testbed's): the figures it lacks are left out
# (it aborted on the missing disk fits).
python3 -c 'import json; m = json.load(open("m.json")); del m["probes"]["disk"]; json.dump(m, open("m-nodisk.json", "w"))'
"$hetperf" calibrate m-nodisk.json --report --out nodisk.json >report.txt 2>report.err ||
  fail "calibrate --report of a measurement without its disk failed" report.txt report.err
grep -q "testbox: MIPS" report.txt || fail "calibrate --report printed no MIPS" report.txt report.err
rm m-nodisk.json nodisk.json report.txt report.err
"$hetperf" predict --platform platform.json --workload "$src/examples/workloads/quickstart.json" --out p.json --csv p.csv >pred.txt
grep -q "mean response" pred.txt || fail "predict printed no mean response" pred.txt
grep -q '"schema": "hetperf.prediction/1"' p.json || fail "the prediction lacks its schema"
[[ $(wc -l <p.csv) -eq 21 ]] || { echo "expected 20 processes + header in CSV"; exit 1; }
# The profile and prediction read back (predict re-reads the profile; a second predict must agree).
"$hetperf" predict --platform platform.json --workload "$src/examples/workloads/quickstart.json" --out p2.json >/dev/null
diff <(grep -v '"command"' p.json) <(grep -v '"command"' p2.json)
echo "pipeline: ok"
