#!/usr/bin/env bash
# The real applications under mpiexec: LU's scaled residual (HPL's check) below 16 for every variant
# and with node removal or expansion (with the same total work), the integral against its closed
# form, and malformed options ending every rank cleanly with exit code 2 (never a hang).
set -uo pipefail
bin=$(dirname "$1")
source "$(dirname "${BASH_SOURCE[0]}")/lib/mpi_apps.sh"

for variant in basic pipelined flow_control; do
  out=$(run -n 2 "$bin/hetperf-lu" --n 384 --r 48 --variant "$variant" --trace "lu-$variant.json") || fail "lu $variant: $out"
  grep -q '"residual_ok":true' <<<"$out" || fail "lu $variant residual: $out"
done
# Four ranks: a rank's previous panel may still be in flight when the next one arrives.
out=$(run -n 4 "$bin/hetperf-lu" --n 384 --r 48 --variant flow_control --window 1) || fail "lu flow_control -n 4: $out"
grep -q '"residual_ok":true' <<<"$out" || fail "lu flow_control -n 4 residual: $out"
out=$(run -n 3 "$bin/hetperf-lu" --n 384 --r 48 --remove 1 --after-iteration 2 --trace lu-removal.json) || fail "lu removal: $out"
grep -q '"residual_ok":true' <<<"$out" || fail "lu removal residual: $out"
# Removal moves work, it does not change it: the same kernel calls overall.
for op in getrf trsm gemm; do
  a=$(grep -c "\"op\": \"$op\"" lu-basic.json); b=$(grep -c "\"op\": \"$op\"" lu-removal.json)
  [[ $a -eq $b ]] || fail "$op calls: $a without removal, $b with"
done
grep -q '"efficiency"' lu-basic.json || fail "trace lacks per-iteration efficiency"

out=$(run -n 4 "$bin/hetperf-integrate" --instances 2 --steps 200000 --disk-bytes 65536 --a 0.5 --b 2) || fail "integrate: $out"
grep -q '"integral_ok":true' <<<"$out" || fail "integral: $out"
[[ -z $(ls -A | grep -v '^lu-') ]] || fail "integration left files: $(ls -A)"

# Real against simulated: the same configuration issues the same operations and messages on every
# rank (times ignored). The simulation uses a hand-written profile with kernel models.
write_kernel_profile profile.json
cat >apps.json <<'JSON'
{"schema": "hetperf.workload/1", "apps": [
  {"name": "basic", "app": "lu", "ranks": 3, "n": 384, "r": 48, "variant": "basic"},
  {"name": "pipelined", "app": "lu", "ranks": 3, "n": 384, "r": 48, "variant": "pipelined"},
  {"name": "flow_control", "app": "lu", "ranks": 3, "n": 384, "r": 48, "variant": "flow_control", "window": 1},
  {"name": "removal", "app": "lu", "ranks": 3, "n": 384, "r": 48, "remove": {"ranks": 1, "after_iteration": 2}},
  {"name": "resize", "app": "lu", "ranks": 8, "n": 384, "r": 24, "variant": "pipelined",
   "expand": {"ranks": 4, "after_iteration": 2}, "remove": {"ranks": 4, "after_iteration": 5}},
  {"name": "integrate", "app": "integrate", "instances": 2, "ranks_per_instance": 3, "steps": 100000,
   "disk_bytes": 4096}]}
JSON
"$1" predict -p profile.json -w apps.json -o prediction.json --trace-dir sim >/dev/null || fail "predict of the apps"
for v in basic pipelined flow_control; do
  run -n 3 "$bin/hetperf-lu" --n 384 --r 48 --variant "$v" --window 1 --trace "real-$v.json" >/dev/null || fail "lu $v"
  "$1" trace-diff "real-$v.json" "sim/$v.trace.json" || fail "real and simulated $v differ"
done
run -n 3 "$bin/hetperf-lu" --n 384 --r 48 --remove 1 --after-iteration 2 --trace real-removal.json >/dev/null
"$1" trace-diff real-removal.json sim/removal.trace.json || fail "real and simulated removal differ"
# ReSHAPE's resizing: 4 ranks, 8 after iteration 2 (the blocks redistributed block-cyclically), 4 again
# after iteration 5; the residual holds and the simulated back-end issues the same operations.
out=$(run -n 8 "$bin/hetperf-lu" --n 384 --r 24 --variant pipelined --expand 4 --expand-after-iteration 2 --remove 4 \
      --after-iteration 5 --trace real-resize.json) || fail "lu resize: $out"
grep -q '"residual_ok":true' <<<"$out" || fail "lu resize residual: $out"
grep -q '"redistributions":\[{"after_iteration":2' <<<"$out" || fail "lu resize: no measured redistribution: $out"
"$1" trace-diff real-resize.json sim/resize.trace.json || fail "real and simulated resize differ"
grep -q '"redistributions"' sim/resize.trace.json || fail "the simulated resize predicts no redistribution"
run -n 6 "$bin/hetperf-integrate" --instances 2 --steps 100000 --disk-bytes 4096 --trace real-integrate.json >/dev/null
"$1" trace-diff real-integrate.json sim/integrate.trace.json || fail "real and simulated integration differ"
# And the comparison can fail: a different configuration is told apart.
if "$1" trace-diff real-basic.json sim/pipelined.trace.json >/dev/null; then fail "trace-diff missed a difference"; fi

expect_usage_error -n 2 "$bin/hetperf-lu" --n 256 --r 512
expect_usage_error -n 2 "$bin/hetperf-lu" --n 256 --r 48
expect_usage_error -n 2 "$bin/hetperf-lu" --n -4 --r 2
expect_usage_error -n 2 "$bin/hetperf-lu" --n 256 --r 32 --remove 2 --after-iteration 1
expect_usage_error -n 2 "$bin/hetperf-lu" --n 256 --r 32 --expand 2 --expand-after-iteration 1
expect_usage_error -n 2 "$bin/hetperf-integrate" --instances 3
echo "apps_mpi: ok"
