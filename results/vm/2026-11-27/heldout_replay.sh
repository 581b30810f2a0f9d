#!/usr/bin/env bash
# Held-out figures from recorded runs: the 98 validated configurations of results/vm/2026-11-25 (686
# real runs, 7 each) predicted again from a subset of that validation's 387 calibration traces, the
# budget a user would have (LU basic on 1 and 2 ranks at two sizes, one integration instance alone).
# Nothing is run for real; `hetperf validate --replay` fits the subset and predicts the recorded runs.
#   results/vm/2026-11-27/heldout_replay.sh BUILD_BIN OUT_DIR
#   in-cache:  LU n = 768, 1024 (matrices inside this VM's 8 MiB last-level cache)
#   out-cache: LU n = 2560, 3584 (out of it)
set -euo pipefail
bin=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
recorded=$here/../2026-11-25
mkdir -p "$out/all"
tar -C "$out/all" -xJf "$recorded/calibration-traces.tar.xz"
for budget in in-cache out-cache; do
  case $budget in
    in-cache) sizes="768 1024" ;;
    out-cache) sizes="2560 3584" ;;
  esac
  dir=$out/$budget
  mkdir -p "$dir/calibration-traces"
  cp "$recorded/validation.json" "$dir/"
  # The recorded profile without its trace models (an older format, fitted again by the replay).
  python3 - "$recorded/profile.json" "$dir/profile.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.pop("placements", None)
for c in p["computers"]:
    c.pop("app_models", None)
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
  for n in $sizes; do
    for p in 1 2; do cp "$out"/all/calibration-traces/cal-lu-n$n-r*-p$p-[0-9].json "$dir/calibration-traces/"; done
  done
  cp "$out"/all/calibration-traces/cal-integrate-1-[14]000000-[0-9].json "$dir/calibration-traces/"
  "$bin/hetperf" validate --replay "$dir" --out "$out/$budget-replay" --samples 100 --seed 2041 --max-error 1e9 \
    >"$out/$budget-replay.out" 2>"$out/$budget-replay.log" || true
  echo "== $budget ($(ls "$dir/calibration-traces" | wc -l) calibration traces)"
  grep -E "^statistics|speed with k|waits" "$out/$budget-replay.out" "$out/$budget-replay.log" | sed 's/^[^:]*://'
done
