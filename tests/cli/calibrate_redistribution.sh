#!/usr/bin/env bash
# hetperf calibrate-redistribution end to end: three measured resizes (hand-written hetperf-lu traces
# timed by t = 10 ms + s / 100 MB/s) give back that line in the profile's network.redistribution, the
# batch scheduler prices a resize with it, and a simulated trace is refused (exit 2, nothing written).
set -euo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
# One rank joins after iteration 1; rank 0 hands it one block of B bytes.
for b in 1000000 4000000 16000000; do
  python3 - "$b" >"lu-$b.json" <<'PY'
import json, sys
b = int(sys.argv[1]); t = 0.01 + b / 1e8
hand_off = {"iteration": 1, "tag": 3, "bytes": b}
print(json.dumps({"schema": "hetperf.trace/1", "app": "lu", "backend": "mpi",
                  "config": {"n": 1024, "r": 128, "remove": 0, "after_iteration": -1, "expand": {"ranks": 1, "after_iteration": 1}},
                  "ranks": [{"rank": 0, "events": [dict(hand_off, op="send", peer=1, start_s=1.0, end_s=1.0 + t)]},
                            {"rank": 1, "events": [dict(hand_off, op="recv", peer=0, start_s=0.0, end_s=1.0 + t)]}]}))
PY
done
"$hetperf" calibrate-redistribution -p "$src/examples/batch/systemx-36.json" -o fitted.json lu-*.json >fit.txt 2>&1 ||
  fail "calibrate-redistribution: $(cat fit.txt)"
python3 - <<'PY' || fail "fitted model: $(cat fit.txt)"
import json
r = json.load(open("fitted.json"))["network"]["redistribution"]
assert abs(r["latency_s"] - 0.01) < 1e-9, r["latency_s"]
assert abs(r["bandwidth_bytes_per_s"] - 1e8) < 1e-3, r["bandwidth_bytes_per_s"]
assert r["fit"]["points"] == 3 and len(r["fit"]["samples"]) == 3
PY
# The scheduler prices a 2 -> 4 resize of 1e9 bytes with it: 0.01 + 2.5e8 / 1e8 = 2.51 s.
cat >w.json <<'JSON'
{"schema": "hetperf.workload/1", "jobs": [{"name": "M", "type": "malleable", "processors": 2, "resize": {"data_bytes": 1e9},
  "app": {"kind": "table", "iterations": 2, "iteration_time_s": {"2": 10, "4": 6}}}]}
JSON
"$hetperf" schedule --workload w.json --platform fitted.json --policy reshape --out s.json >/dev/null 2>&1 || fail "schedule"
python3 -c "
import json; it = json.load(open('s.json'))['jobs'][0]['iterations']
assert abs(it[1]['redistribution_s'] - 2.51) < 1e-9, it" || fail "the scheduler did not use the fitted model"
# A simulated trace is no measurement.
sed 's/"backend": "mpi"/"backend": "sim"/' lu-1000000.json >sim.json
set +e
"$hetperf" calibrate-redistribution -p "$src/examples/batch/systemx-36.json" -o bad.json sim.json lu-4000000.json >/dev/null 2>err.txt
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "simulated trace: exit $rc"
grep -q 'sim.json: $.backend: expected "mpi"' err.txt || fail "simulated trace message: $(cat err.txt)"
[[ ! -e bad.json ]] || fail "output written despite the error"
echo "calibrate_redistribution: ok"
