#!/usr/bin/env bash
# hetperf trace-view end to end: real LU and integration traces (mpiexec) drawn as PNG and SVG Gantt
# charts with their CSV and summary, the trace example of docs/formats.md drawn too, and a malformed
# trace (exit 2, one error line naming the field, nothing written) and a missing gnuplot (exit 3).
set -uo pipefail
hetperf=$1 src=$2
bin=$(dirname "$hetperf")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
command -v mpiexec >/dev/null || { echo "skipped: mpiexec not found"; exit 77; }
command -v gnuplot >/dev/null || { echo "skipped: gnuplot not found (install gnuplot-nox)"; exit 77; }
for app in lu integrate; do
  [[ -x "$bin/hetperf-$app" ]] || { echo "skipped: $bin/hetperf-$app not built"; exit 77; }
done

out=$(timeout 120 mpiexec -n 2 "$bin/hetperf-lu" --n 384 --r 48 --trace lu.json 2>&1) || fail "hetperf-lu: $out"
out=$(timeout 120 mpiexec -n 4 "$bin/hetperf-integrate" --instances 2 --steps 200000 --trace int.json 2>&1) ||
  fail "hetperf-integrate: $out"

"$hetperf" trace-view lu.json --out lu.png --csv lu.csv >lu.txt 2>&1 || fail "trace-view lu: $(cat lu.txt)"
[[ -s lu.png ]] || fail "lu.png missing or empty"
[[ $(head -c 4 lu.png | tail -c 3) == PNG ]] || fail "lu.png is not a PNG"
head -n 1 lu.csv | grep -qx "rank,op,iteration,start_s,end_s,duration_s,peer,tag,bytes,m,n,k" || fail "CSV header"
events=$(grep -c '"op":' lu.json)
[[ $(($(wc -l <lu.csv) - 1)) -eq $events ]] || fail "CSV has $(($(wc -l <lu.csv) - 1)) events, the trace $events"
grep -q "lu on the mpi back-end, 2 ranks, makespan" lu.txt || fail "summary: $(cat lu.txt)"
[[ $(grep -cE '^ +[01] +[0-9]+ ' lu.txt) -eq 2 ]] || fail "summary lacks a line per rank: $(cat lu.txt)"

# One rank, a time window, SVG; and the integration trace (its ranks are "instance_0_ranks"). The
# window is the first half of the trace's own span: where the factorisation starts on the clock
# depends on the run (its buffers are prepared before it; 60 ms in a loaded CI run).
read -r from to < <(awk -F, 'NR > 1 { if (min == "" || $4 < min) min = $4; if ($5 > max) max = $5 }
                             END { printf "%.6f %.6f\n", min, min + (max - min) / 2 }' lu.csv)
"$hetperf" trace-view lu.json --out part.svg --ranks 1 --from "$from" --to "$to" --no-iterations >part.txt 2>&1 ||
  fail "trace-view window: $(cat part.txt)"
grep -q "<svg" part.svg || fail "part.svg is not an SVG"
grep -q "ranks shown: 1 of 2" part.txt || fail "--ranks 1: $(cat part.txt)"
"$hetperf" trace-view int.json --out int.png >int.txt 2>&1 || fail "trace-view integrate: $(cat int.txt)"
[[ -s int.png ]] || fail "int.png missing or empty"

# The example in docs/formats.md (fenced "```json trace", which docs_examples.sh leaves to this test).
awk '/^```json trace$/ { inblock = 1; next } /^```$/ && inblock { exit } inblock { print }' \
  "$src/docs/formats.md" >doc.json
[[ -s doc.json ]] || fail "no trace example in docs/formats.md"
"$hetperf" trace-view doc.json --out doc.png >doc.txt 2>&1 || fail "docs example: $(cat doc.txt)"

# A malformed trace: the first event's "op" is a number. Exit 2, one line, no output at all.
sed '0,/"op": "/s/"op": "/"op": 7, "was": "/' lu.json >bad.json
"$hetperf" trace-view bad.json --out bad.png --csv bad.csv >/dev/null 2>err.txt
rc=$?
[[ $rc -eq 2 ]] || fail "malformed trace: exit $rc: $(cat err.txt)"
[[ $(wc -l <err.txt) -eq 1 ]] || fail "expected one error line: $(cat err.txt)"
grep -q 'bad.json: $.ranks\[0\].events\[0\].op: expected a string, got 7' err.txt || fail "message: $(cat err.txt)"
[[ ! -e bad.png && ! -e bad.csv ]] || fail "output written despite the error"

# No gnuplot on PATH: exit 3 naming it, nothing written.
PATH=/nonexistent "$hetperf" trace-view lu.json --out nognuplot.png >/dev/null 2>err.txt
rc=$?
[[ $rc -eq 3 ]] || fail "without gnuplot: exit $rc: $(cat err.txt)"
grep -q "gnuplot not found" err.txt || fail "without gnuplot: $(cat err.txt)"
[[ ! -e nognuplot.png ]] || fail "picture written without gnuplot"

leftover=$(ls -A | grep -vxE 'lu\.(json|png|csv|txt)|int\.(json|png|txt)|part\.(svg|txt)|doc\.(json|png|txt)|bad\.json|err\.txt')
[[ -z $leftover ]] || fail "unexpected files: $leftover"
echo "trace_view: ok"
