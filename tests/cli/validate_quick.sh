#!/usr/bin/env bash
# hetperf validate --quick end to end (issue 7): probes and calibrates this machine, predicts, runs
# the real applications, prints its accuracy figures and writes every report. It fails only on loose
# bounds: the median |error| of the runs above HETPERF_VALIDATE_MEDIAN (default 0.30), or one
# prediction off by more than a factor of HETPERF_VALIDATE_FACTOR (default 2) either way. On this
# shared 2-core machine a single short run moves by ±20-40% with the host's drift (a loaded CI run
# moved one by +84%), while a broken model or pipeline moves most runs: the median catches that,
# the factor a single absurd prediction. The accuracy figures themselves come from the full run in
# results/.
set -uo pipefail
hetperf=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v mpiexec >/dev/null || { echo "skipped: mpiexec not found"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
"$hetperf" validate --quick --out "$work/v" --max-error 1e9 2>"$work/log"
rc=$?
grep -v "calibrate: warning" "$work/log" | grep -E "^\[|validate:" || true
[[ $rc -eq 0 ]] || fail "hetperf validate --quick exited $rc"
for f in validation.csv validation.md validation.json profile.json measurement.json; do
  [[ -s $work/v/$f ]] || fail "missing $f"
done
if command -v gnuplot >/dev/null; then
  for f in errors-histogram measured-vs-predicted efficiency-removal integration-curve; do
    [[ -s $work/v/$f.png ]] || fail "missing $f.png"
  done
fi
runs=$(($(wc -l <"$work/v/validation.csv") - 1))
factor=${HETPERF_VALIDATE_FACTOR:-2}
limit=${HETPERF_VALIDATE_MEDIAN:-0.30}
if [[ -n ${HETPERF_SANITIZED:-} ]]; then
  # Instrumented programs time differently from the ones users run: the pipeline is checked, not the
  # accuracy.
  echo "validate_quick: accuracy bounds not checked (sanitized build)"
  factor=1e9 limit=1e9
fi
bad=$(awk -F, -v f="$factor" 'NR > 1 && ($15 > f * $14 || $14 > f * $15) { print $1 " measured " $14 " s, predicted " $15 " s" }' \
  "$work/v/validation.csv")
[[ -z $bad ]] || fail "predictions off by more than a factor of $factor: $bad"
median=$(awk -F, 'NR > 1 { e = $16 < 0 ? -$16 : $16; print e }' "$work/v/validation.csv" | sort -g |
  awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "validate_quick: median |error| $median (bound $limit)"
awk -v m="$median" -v l="$limit" 'BEGIN { exit !(m <= l) }' || fail "median |error| $median above $limit"
[[ $runs -ge 10 ]] || fail "only $runs runs"
[[ -z $(ls -A "$work/v" | grep '^\.') ]] || fail "left hidden files: $(ls -A "$work/v")"
grep -q '"communication_cpu"' "$work/v/profile.json" || fail "profile lacks the calibrated communication terms"
echo "validate_quick: ok ($runs runs)"
