#!/usr/bin/env bash
# The three recorded held-out matrices of this VM replayed with and without a scheduler slice in the
# profile (communication_cpu.time_slice_s = SLICE, default 0.004 s): nothing runs for real.
#   results/vm/2026-11-27-slices/replay_slices.sh BUILD_BIN OUT_DIR [SLICE]
# repeat3: results/vm/2026-11-27-repeat3 (quiet, 3 runs a configuration, seed 2043)
# full:    results/vm/2026-11-27-full (slow and noisy, 7 runs, seed 2043)
# 11-25:   results/vm/2026-11-25 through results/vm/2026-11-27/heldout_replay.sh (its two budgets)
set -euo pipefail
bin=$(cd "$1" && pwd) out=$2 slice=${3:-0.004}
here=$(cd "$(dirname "$0")" && pwd)
vm=$here/..
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Adds the slice to every computer of a profile.
with_slice() {
  python3 - "$1" "$slice" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for c in p["computers"]:
    c.setdefault("communication_cpu", {})["time_slice_s"] = float(sys.argv[2])
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY
}
for rec in repeat3 full; do
  src=$vm/2026-11-27-$rec
  for variant in base slice; do
    dir=$out/$rec-$variant
    mkdir -p "$dir"
    cp "$src"/{validation,profile,measurement}.json "$dir/"
    tar -C "$dir" -xJf "$src/calibration-traces.tar.xz"
    [[ $variant == slice ]] && with_slice "$dir/profile.json"
    "$bin/hetperf" validate --replay "$dir" --out "$dir-replay" --seed 2043 --max-error 1e9 >"$dir-replay.log" 2>&1
    echo "== $rec, $variant"
    grep -E "^statistics: held-out" "$dir-replay.log"
  done
done
"$vm/2026-11-27/heldout_replay.sh" "$bin" "$out/11-25-base" >/dev/null
for budget in in-cache out-cache; do
  for variant in base slice; do
    dir=$out/11-25-$variant-$budget
    rm -rf "$dir"
    cp -r "$out/11-25-base/$budget" "$dir"
    [[ $variant == slice ]] && with_slice "$dir/profile.json"
    "$bin/hetperf" validate --replay "$dir" --out "$dir-replay" --samples 100 --seed 2041 --max-error 1e9 >"$dir-replay.log" 2>&1
    echo "== 11-25 $budget, $variant"
    grep -E "^statistics: held-out" "$dir-replay.log"
  done
done
