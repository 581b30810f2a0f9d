#!/usr/bin/env bash
# hetperf validate --quick end to end (issue 7): probes and calibrates this machine, predicts, runs
# the real applications, prints its accuracy figures and writes every report. It fails only on a
# loose bound (HETPERF_VALIDATE_MAX_ERROR, default 0.5: any run off by more than 50%), so a shared,
# noisy machine does not fail CI while a broken model or a broken pipeline does.
set -uo pipefail
hetperf=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v mpiexec >/dev/null || { echo "skipped: mpiexec not found"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
"$hetperf" validate --quick --out "$work/v" --max-error "${HETPERF_VALIDATE_MAX_ERROR:-0.5}" 2>"$work/log"
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
[[ $runs -ge 10 ]] || fail "only $runs runs"
[[ -z $(ls -A "$work/v" | grep '^\.') ]] || fail "left hidden files: $(ls -A "$work/v")"
grep -q '"communication_cpu"' "$work/v/profile.json" || fail "profile lacks the calibrated communication terms"
echo "validate_quick: ok ($runs runs)"
