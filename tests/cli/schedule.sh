#!/usr/bin/env bash
# hetperf schedule end to end: a real SWF trace under EASY (byte-identical reruns, SWF export that
# reads back), the W1 example under ReSHAPE, and a malformed SWF line (exit 2, line and field named,
# nothing written).
set -euo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
# The committed excerpt (tests/data/swf/README.md): a plain clone has it.
cp "$src/tests/data/swf/NASA-iPSC-1993-3.1-cln.first1500.swf" trace.swf
for run in 1 2; do
  "$hetperf" schedule --swf trace.swf --policy easy --out "s$run.json" --swf-out "s$run.swf" >/dev/null 2>&1
done
# Identical but for the recorded command line, which names the output file.
cmp <(grep -v '"command"' s1.json) <(grep -v '"command"' s2.json) || fail "two runs of the same trace differ"
"$hetperf" schedule --swf s1.swf --policy fcfs --out back.json >/dev/null 2>&1 || fail "exported SWF does not read back"
grep -q '"schema": "hetperf.schedule/1"' s1.json || fail "schedule JSON lacks its schema"
"$hetperf" schedule --workload "$src/examples/batch/w1.json" --platform "$src/examples/batch/systemx-36.json" --policy reshape --out w1.json >w1.txt 2>&1 || fail "W1: $(cat w1.txt)"

# A malformed line: field 5 (allocated processors) is not a number.
awk 'NR == 40 && $0 !~ /^;/ { $5 = "x" } { print }' trace.swf >bad.swf
set +e
"$hetperf" schedule --swf bad.swf --out bad.json >/dev/null 2>err.txt
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "malformed SWF: exit $rc"
grep -q "bad.swf:40: field 5" err.txt || fail "malformed SWF message: $(cat err.txt)"
[[ ! -e bad.json ]] || fail "output written despite the error"
echo "schedule: ok"
