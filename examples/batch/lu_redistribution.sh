#!/usr/bin/env bash
# Measures the real LU's redistributions at resize points and sets them beside the simulated back-end's
# predictions, then calibrates the batch scheduler's redistribution model from the measured ones.
# Each configuration resizes twice (expansion after iteration 1, removal back after iteration 3),
# REPEATS times, the runs interleaved in rounds so that a slow spell of the machine does not fall on
# one configuration. Usage: examples/batch/lu_redistribution.sh [BIN] [PROFILE] [OUT] [REPEATS]
# (defaults: build/bin, results/vm/profile.json, results/scheduling/lu-redistribution, 3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/build/bin}"
profile="${2:-$root/results/vm/profile.json}"
out="${3:-$root/results/scheduling/lu-redistribution}"
repeats="${4:-3}"
command -v mpiexec >/dev/null || { echo "mpiexec not found" >&2; exit 3; }
mkdir -p "$out/real" "$out/sim"
# name ranks n r joining/leaving ranks
configs=("p2-n1536 2 1536 96 1" "p2-n3072 2 3072 96 1" "p2-n4608 2 4608 96 1" "p4-n3072 4 3072 96 2" "p8-n1536 8 1536 96 4")
apps=()
for c in "${configs[@]}"; do
  read -r name p n r k <<<"$c"
  apps+=("{\"name\": \"$name\", \"app\": \"lu\", \"ranks\": $p, \"n\": $n, \"r\": $r, \"expand\": {\"ranks\": $k, \"after_iteration\": 1}, \"remove\": {\"ranks\": $k, \"after_iteration\": 3}}")
done
(IFS=,; echo "{\"schema\": \"hetperf.workload/1\", \"apps\": [${apps[*]}]}") >"$out/apps.json"
cat /proc/loadavg >"$out/loadavg-before.txt"
# The simulated traces are needed for the predicted redistributions (they are read from the events);
# prediction.json keeps them in each app's summary, so the traces themselves are not kept.
"$bin/hetperf" predict -p "$profile" -w "$out/apps.json" -o "$out/prediction.json" --trace-dir "$out/sim" >/dev/null
rm -rf "$out/sim"
for rep in $(seq 1 "$repeats"); do
  for c in "${configs[@]}"; do
    read -r name p n r k <<<"$c"
    timeout 600 mpiexec -n "$p" "$bin/hetperf-lu" --n "$n" --r "$r" --expand "$k" --expand-after-iteration 1 \
      --remove "$k" --after-iteration 3 --trace "$out/real/$name-$rep.json" >/dev/null
  done
done
cat /proc/loadavg >"$out/loadavg-after.txt"
"$bin/hetperf" calibrate-redistribution -p "$profile" -o "$out/profile.json" "$out"/real/*.json
python3 "$here/lu_redistribution_report.py" "$out"
# The real traces (several MB of JSON) are kept compressed: tar -xJf real-traces.tar.xz gives them back.
tar -C "$out" -cJf "$out/real-traces.tar.xz" real && rm -rf "$out/real"
