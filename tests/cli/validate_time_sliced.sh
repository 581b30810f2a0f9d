#!/usr/bin/env bash
# `hetperf validate` reports the predictions with the cpu probe's scheduler slice applied (time-sliced
# cores) beside the default ones when the profile records a measured slice and does not apply one:
# overall and per held-out axis, in its output and in validation.json. Those predictions are the ones
# of the same profile with the slice applied (communication_cpu.time_slice_s), run for run. A replay
# (--replay, which runs nothing) of a few recorded runs of this VM, with 20 sampled predictions each.
set -uo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"
# recorded: the profile as recorded (no slice measured); measured: its computer records a slice of
# 4 ms from the cpu probe, not applied (as calibrate writes it); applied: the same slice applied.
for variant in recorded measured applied; do
  mkdir "$variant"
  python3 - "$src/results/vm/2026-11-27-repeat3" "$variant" <<'PY' || fail "cannot prepare $variant"
import json, sys
src, variant = sys.argv[1], sys.argv[2]
v = json.load(open(src + "/validation.json"))
keep = {"lu-n1536-r64-p3-basic", "lu-n1536-r64-p4-basic", "lu-n3072-r64-p2-basic", "lu-n3072-r64-p1-basic"}
v["runs"] = [r for r in v["runs"] if r["id"] in keep]
assert len(v["runs"]) == len(keep)
json.dump(v, open(variant + "/validation.json", "w"))
p = json.load(open(src + "/profile.json"))
for c in p["computers"]:
    if variant == "measured":
        c.setdefault("fits", {}).setdefault("communication_cpu", {})["time_slice_s"] = {
            "source": "$.probes.cpu.time_slice", "processes": 3, "slice_s": 0.004, "applied": False}
    if variant == "applied":
        c.setdefault("communication_cpu", {})["time_slice_s"] = 0.004
json.dump(p, open(variant + "/profile.json", "w"))
PY
  "$hetperf" validate --replay "$variant" --out "$variant-out" --max-error 1e9 --max-bias 1e9 --min-coverage 0 \
    --samples 20 --seed 7 >"$variant.out" 2>"$variant.log" || fail "the replay of $variant exited $?: $(tail -3 "$variant.log")"
done
grep -q "time-sliced" recorded.out && fail "a profile without a measured slice has a time-sliced row: $(cat recorded.out)"
grep -q "time-sliced" applied.out && fail "a profile that applies its slice has a second, time-sliced row: $(cat applied.out)"
grep -q "^statistics: time-sliced 4.0 ms: all " measured.out || fail "no time-sliced row overall: $(cat measured.out)"
grep -q "^statistics: time-sliced 4.0 ms: held-out ranks " measured.out ||
  fail "no time-sliced row for the held-out rank counts: $(cat measured.out)"
# The recorded slice is the hand-off's in the default predictions: it changes those of the
# oversubscribed runs (3 and 4 ranks on the 2 cores), not the others'.
python3 - recorded-out/validation.json measured-out/validation.json <<'PY' || fail "the recorded slice as the hand-off's"
import json, sys
recorded, measured = (json.load(open(f)) for f in sys.argv[1:])
before = {r["id"]: r["predicted_s"] for r in recorded["runs"]}
changed = {r["id"] for r in measured["runs"] if r["predicted_s"] != before[r["id"]]}
assert changed == {"lu-n1536-r64-p3-basic", "lu-n1536-r64-p4-basic"}, changed
PY
# The time-sliced predictions are the applied profile's, run for run, with the same seeds.
python3 - measured-out/validation.json applied-out/validation.json <<'PY' || fail "the time-sliced predictions are not the applied profile's"
import json, sys
measured, applied = (json.load(open(f)) for f in sys.argv[1:])
sliced = measured["summary"]["time_sliced"]
assert sliced["slice_s"] == 0.004, sliced
assert "ranks" in sliced["axes"], sliced["axes"].keys()
assert sliced["statistics"] == applied["summary"]["statistics"], (sliced["statistics"], applied["summary"]["statistics"])
by_id = {r["id"]: r for r in applied["runs"]}
for r in measured["runs"]:
    a = by_id[r["id"]]
    assert r["time_sliced_s"] == a["predicted_s"], (r["id"], r["time_sliced_s"], a["predicted_s"])
    assert r["time_sliced_80"] == a["predicted_80"], (r["id"], r["time_sliced_80"], a["predicted_80"])
# The slice changes the oversubscribed runs' predictions, not the others'.
changed = {r["id"] for r in measured["runs"] if r["time_sliced_s"] != r["predicted_s"]}
assert changed == {"lu-n1536-r64-p3-basic", "lu-n1536-r64-p4-basic"}, changed
PY
echo "validate_time_sliced: ok"
