#!/usr/bin/env bash
# Schedules the ReSHAPE paper's workloads W1 and W2 statically (fcfs: every job keeps its initial allocation)
# and dynamically (reshape), and writes the comparison with the paper to OUT/report.md (compare.py)
# with the pictures.
# Usage: examples/batch/run.sh [HETPERF] [OUT]   (defaults: build/bin/hetperf, results/scheduling)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
hetperf="${1:-$root/build/bin/hetperf}"
out="${2:-$root/results/scheduling}"
mkdir -p "$out"
for w in w1 w2; do
  for policy in fcfs reshape; do
    "$hetperf" schedule --workload "$here/$w.json" --platform "$here/systemx-36.json" --policy "$policy" \
      --out "$out/$w-$policy.json" --csv "$out/$w-$policy.csv" --allocation-csv "$out/$w-$policy-allocation.csv" \
      --plot-dir "$out/$w-$policy" >/dev/null
  done
done
python3 "$here/compare.py" "$out"
