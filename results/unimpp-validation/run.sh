#!/usr/bin/env bash
# Reproduces the UniMPP paper, section 4 (Tables 3 and 7) with `hetperf predict`: the integration workload of
# examples/integration/ with 10 to 100 workers on c1,c2 and on c3,c4.
# The per-worker mp (MI) is not given by the paper: for each platform it is fitted to the paper's
# measured average at 10 processes (response is affine in mp: two runs give the exact fit), then the
# 20..100-process averages are predicted with that mp. Writes results.csv and table.md here.
# Usage: results/unimpp-validation/run.sh [path/to/hetperf]   (default: build/bin/hetperf, as scripts/build makes it)
# WORKER_MB=<MB> overrides the workers' static memory (the paper does not give it; the example files
# assume 1 MB) and writes results-sm<MB>.csv / table-sm<MB>.md instead, for a sensitivity check.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
hetperf="${1:-$root/build/bin/hetperf}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
suffix="${WORKER_MB:+-sm$WORKER_MB}"
memory_filter="${WORKER_MB:+| .static_memory_mb = $WORKER_MB}"

# Paper columns: processes, actual average, predicted average (Table 3: c1c2, Table 7: c3c4).
table3="10 151.40 149.51
20 301.05 293.47
30 447.70 437.46
40 578.29 573.58
50 730.84 714.92
60 856.76 862.52
70 1002.10 1012.17
80 1147.44 1165.24
90 1245.40 1318.37
100 1396.80 1471.88"
table7="10 153.29 152.38
20 306.63 304.66
30 457.93 457.46
40 593.66 610.78
50 760.02 764.65
60 892.29 918.97
70 1040.21 1074.18
80 1188.14 1230.75
90 1333.70 1388.14
100 1488.97 1572.22"

# Mean response of the workers for `count` workers of `mi` MI on `platform`.
worker_mean() {
  local platform=$1 count=$2 mi=$3
  jq --argjson n "$count" --argjson mi "$mi" \
    "(.processes[] | select(.name == \"worker\")) |= (.count = \$n | .mi = \$mi $memory_filter)" \
    "$root/examples/integration/integration-$platform.json" >"$work/w.json"
  "$hetperf" predict -p "$root/examples/integration/$platform.json" -w "$work/w.json" -o "$work/p.json" \
    --timeline-points 0 >/dev/null 2>&1
  jq '[.processes[] | select(.name | startswith("worker")) | .response_s] | add / length' "$work/p.json"
}

echo "platform,processes,actual_s,paper_predicted_s,hetperf_predicted_s,hetperf_error,paper_error,worker_mi" >"$here/results$suffix.csv"
{
  echo "| Processes | c1c2 actual (Table 3) | c1c2 paper predicted | c1c2 hetperf | hetperf error | c3c4 actual (Table 7) | c3c4 paper predicted | c3c4 hetperf | hetperf error |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$here/table$suffix.md"
declare -A fitted predicted
for platform in c1c2 c3c4; do
  table=$([ "$platform" = c1c2 ] && echo "$table3" || echo "$table7")
  target=$(echo "$table" | awk '$1 == 10 {print $2}')
  r1=$(worker_mean "$platform" 10 10000)
  r2=$(worker_mean "$platform" 10 20000)
  mi=$(awk -v t="$target" -v r1="$r1" -v r2="$r2" 'BEGIN {a = (r2 - r1) / 10000; b = r1 - a * 10000; printf "%.1f", (t - b) / a}')
  fitted[$platform]=$mi
  while read -r n actual paper; do
    mean=$(worker_mean "$platform" "$n" "$mi")
    predicted[$platform,$n]="$actual $paper $mean"
    awk -v p="$platform" -v n="$n" -v a="$actual" -v q="$paper" -v m="$mean" -v mi="$mi" \
      'BEGIN {printf "%s,%d,%.2f,%.2f,%.2f,%.4f,%.4f,%s\n", p, n, a, q, m, (m - a) / a, (q - a) / a, mi}' >>"$here/results$suffix.csv"
  done <<<"$table"
done
for n in 10 20 30 40 50 60 70 80 90 100; do
  read -r a1 q1 m1 <<<"${predicted[c1c2,$n]}"
  read -r a2 q2 m2 <<<"${predicted[c3c4,$n]}"
  awk -v n="$n" -v a1="$a1" -v q1="$q1" -v m1="$m1" -v a2="$a2" -v q2="$q2" -v m2="$m2" \
    'BEGIN {printf "| %d | %.2f | %.2f | %.2f | %+.1f%% | %.2f | %.2f | %.2f | %+.1f%% |\n", n, a1, q1, m1, 100 * (m1 - a1) / a1, a2, q2, m2, 100 * (m2 - a2) / a2}' \
    >>"$here/table$suffix.md"
done
echo >>"$here/table$suffix.md"
echo "Fitted worker mp: c1c2 ${fitted[c1c2]} MI, c3c4 ${fitted[c3c4]} MI (each fitted to the 10-process actual average)." >>"$here/table$suffix.md"
cat "$here/table$suffix.md"
