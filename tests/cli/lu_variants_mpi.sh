#!/usr/bin/env bash
# The LU's variant matrix under mpiexec -n 4: every flow graph (basic, pipelined, flow_control) with
# every panel broadcast (sequential, tree, ring) and parallel sub-block multiplications (PM, S = 1, 2,
# 4), plus PM with node removal. Each real run must pass its residual check, and its trace must hold
# the same operations, rank by rank, as the simulated run of the same configuration (trace-diff).
# Small sizes: -n 4 on a 2-core machine is oversubscribed, which is fine for correctness.
set -uo pipefail
hetperf=$1
bin=$(dirname "$1")
source "$(dirname "${BASH_SOURCE[0]}")/lib/mpi_apps.sh"
write_kernel_profile profile.json

# One workload job per configuration; the same options for hetperf-lu.
jobs=() names=() args=()
for v in basic pipelined flow_control; do
  for s in 1 2 4; do
    for b in sequential tree ring; do
      names+=("$v-s$s-$b")
      args+=("--variant $v --window 1 --parallel-multiply $s --bcast $b")
      jobs+=("{\"name\": \"$v-s$s-$b\", \"app\": \"lu\", \"ranks\": 4, \"n\": 256, \"r\": 32, \"variant\": \"$v\",
              \"window\": 1, \"parallel_multiply\": $s, \"bcast\": \"$b\"}")
    done
  done
done
names+=("removal-pm")
args+=("--variant pipelined --parallel-multiply 3 --bcast tree --remove 1 --after-iteration 2")
jobs+=('{"name": "removal-pm", "app": "lu", "ranks": 4, "n": 384, "r": 48, "variant": "pipelined",
         "parallel_multiply": 3, "bcast": "tree", "remove": {"ranks": 1, "after_iteration": 2}}')
(IFS=,; echo "{\"schema\": \"hetperf.workload/1\", \"apps\": [${jobs[*]}]}") >apps.json
"$hetperf" predict -p profile.json -w apps.json -o prediction.json --trace-dir sim >/dev/null || fail "predict of the LU matrix"

for i in "${!names[@]}"; do
  name=${names[$i]}
  size="--n 256 --r 32"
  [[ $name == removal-pm ]] && size="--n 384 --r 48"
  # shellcheck disable=SC2086
  out=$(run -n 4 "$bin/hetperf-lu" $size ${args[$i]} --trace "real-$name.json") || fail "lu $name: $out"
  grep -q '"residual_ok":true' <<<"$out" || fail "lu $name residual: $out"
  residual=$(grep -o '"residual":[^,}]*' <<<"$out")
  diff=$("$hetperf" trace-diff "real-$name.json" "sim/$name.trace.json") || fail "real and simulated $name differ: $diff"
  echo "$name: ${residual#*:}, $diff"
done

# The options change the operations: the comparison tells them apart.
if "$hetperf" trace-diff real-pipelined-s1-sequential.json sim/pipelined-s2-sequential.trace.json >/dev/null; then
  fail "trace-diff missed the PM shares"
fi
if "$hetperf" trace-diff real-pipelined-s1-sequential.json sim/pipelined-s1-tree.trace.json >/dev/null; then
  fail "trace-diff missed the tree broadcast"
fi
# PM moves multiplications between ranks, it does not change the factorisation's work: with S
# shares, each trailing update of r columns becomes S multiplications of r/S columns.
count() { grep -o "\"op\": *\"$2\"" "$1" | wc -l; }
[[ $(count real-basic-s2-ring.json getrf) -eq $(count real-basic-s1-ring.json getrf) ]] || fail "getrf calls differ with PM"
[[ $(count real-basic-s2-ring.json trsm) -eq $(count real-basic-s1-ring.json trsm) ]] || fail "trsm calls differ with PM"
[[ $(count real-basic-s2-ring.json gemm) -eq $((2 * $(count real-basic-s1-ring.json gemm))) ]] || fail "gemm calls with PM S=2"

expect_usage_error -n 2 "$bin/hetperf-lu" --n 256 --r 32 --parallel-multiply 3    # does not divide r
expect_usage_error -n 2 "$bin/hetperf-lu" --n 256 --r 32 --parallel-multiply 4    # more shares than ranks
expect_usage_error -n 2 "$bin/hetperf-lu" --n 256 --r 32 --parallel-multiply 0
expect_usage_error -n 2 "$bin/hetperf-lu" --n 256 --r 32 --bcast star
echo "lu_variants_mpi: ok"
