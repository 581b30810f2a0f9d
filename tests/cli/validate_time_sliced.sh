#!/usr/bin/env bash
# Time-sliced cores are the default model of an oversubscribed computer whose cpu probe measured the
# scheduler's slice: calibrate applies it (communication_cpu.time_slice_s), and a replay applies a
# slice an older calibrate only recorded. `hetperf validate` reports the other model, processor
# sharing with the hand-off, beside it: overall and per held-out axis, in its output and in
# validation.json, run for run with the same seeds. A replay (--replay, which runs nothing) of a few
# recorded runs of this VM, with 20 sampled predictions each.
set -uo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"
# recorded: the profile as recorded (no slice measured); measured: its computer records a slice of
# 4 ms from the cpu probe, not applied (as an older calibrate wrote it); applied: a slice of 4 ms
# applied, none recorded.
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
grep -q "processor sharing\|time-sliced" recorded.out && fail "a profile without a slice has a second row: $(cat recorded.out)"
for variant in measured applied; do
  grep -q "^statistics: processor sharing: all " $variant.out || fail "no processor-sharing row overall ($variant): $(cat $variant.out)"
  grep -q "^statistics: processor sharing: held-out ranks " $variant.out ||
    fail "no processor-sharing row for the held-out rank counts ($variant): $(cat $variant.out)"
done
python3 - recorded-out/validation.json measured-out/validation.json applied-out/validation.json <<'PY' || fail "the two models' predictions"
import json, sys
recorded, measured, applied = (json.load(open(f)) for f in sys.argv[1:])
oversubscribed = {"lu-n1536-r64-p3-basic", "lu-n1536-r64-p4-basic"}
ids = lambda v: {r["id"]: r for r in v["runs"]}
rec, mea, app = ids(recorded), ids(measured), ids(applied)
assert "alternative" not in recorded["summary"] and all("alternative_s" not in r for r in recorded["runs"])
for v in (measured, applied):
    other = v["summary"]["alternative"]
    assert other["model"] == "processor sharing" and other["slice_s"] == 0, other
    assert "ranks" in other["axes"], other["axes"].keys()
# The recorded slice applied in the replay: its default predictions are the applied profile's, run for run.
for i in mea:
    assert mea[i]["predicted_s"] == app[i]["predicted_s"], (i, mea[i]["predicted_s"], app[i]["predicted_s"])
    assert mea[i]["predicted_80"] == app[i]["predicted_80"], i
# Processor sharing without a recorded slice is the recorded profile's default, run for run.
for i in app:
    assert app[i]["alternative_s"] == rec[i]["predicted_s"], (i, app[i]["alternative_s"], rec[i]["predicted_s"])
# With a recorded slice, processor sharing takes it as the hand-off's: only the oversubscribed runs change.
changed = {i for i in mea if mea[i]["alternative_s"] != rec[i]["predicted_s"]}
assert changed == oversubscribed, changed
# The two models differ on the oversubscribed runs only.
changed = {i for i in mea if mea[i]["alternative_s"] != mea[i]["predicted_s"]}
assert changed == oversubscribed, changed
PY
echo "validate_time_sliced: ok"
