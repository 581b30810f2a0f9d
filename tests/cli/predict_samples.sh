#!/usr/bin/env bash
# Calibration on the applications' own traces and predicted distributions, end to end:
# real traced LU and integration runs, calibrate --trace, then predict --samples. The distributions
# are byte-identical on one thread, on two, and split over two processes under mpiexec; without
# trace-calibrated models --samples 1 is the point prediction; malformed options and a simulated
# trace are refused with exit 2 and nothing written.
set -uo pipefail
hetperf=$1
bin=$(dirname "$1")
source "$(dirname "${BASH_SOURCE[0]}")/lib/mpi_apps.sh"
traced() { run "$@" >/dev/null || fail "mpiexec $*"; }

for i in 1 2; do
  for p in 1 2; do traced -n "$p" "$bin/hetperf-lu" --n 384 --r 48 --trace "lu-$p-$i.json"; done
  traced -n 2 "$bin/hetperf-integrate" --instances 1 --steps $((100000 * i)) --trace "int-$i.json"
  traced -n 2 "$bin/hetperf-integrate" --instances 1 --steps $((150000 * i)) --trace "int-b-$i.json"
done
# A hand-written profile with micro-benchmark kernel models only.
write_kernel_profile measurement.json
cat >apps.json <<'JSON'
{"schema": "hetperf.workload/1", "apps": [
  {"name": "lu", "app": "lu", "ranks": 2, "n": 480, "r": 48, "computers": ["here"]},
  {"name": "int", "app": "integrate", "instances": 3, "ranks_per_instance": 2, "steps": 200000, "computers": ["here"],
   "start_s": 10}]}
JSON
"$hetperf" predict -p measurement.json -w apps.json -o point.json >/dev/null || fail "point prediction"
# calibrate takes a measurement file (a short cpu probe of this machine, named "here"), and the
# traces' models go onto that computer.
"$hetperf" probe --quick --only cpu --blocks 32,64 --time-cap 0.2 -o probe.json >/dev/null 2>&1 || fail "cpu probe"
traces=()
for f in lu-*.json int-*.json; do traces+=(--trace "$f"); done
"$hetperf" calibrate probe.json "${traces[@]}" --trace-computer here --name here -o profile.json >calibrate.out 2>&1 ||
  fail "calibrate --trace: $(cat calibrate.out)"
grep -q "here gemm: " calibrate.out || fail "no gemm model: $(cat calibrate.out)"
grep -q "here integrate: " calibrate.out || fail "no integration model: $(cat calibrate.out)"
grep -q "here messages: " calibrate.out || fail "no message model: $(cat calibrate.out)"
grep -q "measured / predicted by the mechanisms" calibrate.out || fail "no calibration diagnostics: $(cat calibrate.out)"
grep -q '"app_models"' profile.json || fail "profile lacks app_models"
# Nothing in the calibrated profile is keyed by an application configuration; the check itself fails
# on a profile that is (an operation model per rank count, as older versions wrote).
check=$(dirname "$0")/lib/no_configuration_factors.py
python3 "$check" profile.json || fail "configuration-keyed factors in the calibrated profile"
python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); p["computers"][0]["app_models"]["operations"][0]["ranks"] = 2; json.dump(p, open(sys.argv[2], "w"))' \
  profile.json keyed.json
python3 "$check" keyed.json >keyed.out && fail "the profile check passed a profile with an operation model per rank count"
grep -q 'operations\[0\].ranks' keyed.out || fail "the profile check did not name the field: $(cat keyed.out)"

"$hetperf" predict -p profile.json -w apps.json --samples 64 --seed 5 --threads 1 -o one.json >/dev/null 2>&1 || fail "samples, 1 thread"
"$hetperf" predict -p profile.json -w apps.json --samples 64 --seed 5 --threads 2 -o two.json >/dev/null 2>&1 || fail "samples, 2 threads"
timeout 120 mpiexec -n 2 "$hetperf" predict -p profile.json -w apps.json --samples 64 --seed 5 -o mpi.json >/dev/null 2>&1 ||
  fail "samples under mpiexec"
for f in two mpi; do
  cmp <(grep -v '"command"' one.json) <(grep -v '"command"' "$f.json") || fail "$f.json differs from one.json"
done
python3 - <<'PY' || fail "distribution fields"
import json
p = json.load(open("one.json"))
for app in p["apps"]:
    d = app["distribution"]
    assert d["n"] == 64 and len(d["samples"]) == 64, d.keys()
    assert d["p5"] <= d["p10"] <= d["median"] <= d["p90"] <= d["p95"], d
    assert min(d["samples"]) < max(d["samples"]), "no spread"
assert len(p["apps"][1]["distribution"]["processes"]) == 3
PY
"$hetperf" predict -p profile.json -w apps.json --samples 64 --seed 6 -o other.json >/dev/null 2>&1
cmp -s <(grep -v '"command"' one.json) <(grep -v '"command"' other.json) && fail "another seed gave the same samples"

# Without trace-calibrated models there is no noise: one sample is the point prediction.
"$hetperf" predict -p measurement.json -w apps.json --samples 1 -o s1.json >/dev/null || fail "--samples 1"
python3 - <<'PY' || fail "--samples 1 is not the point prediction"
import json
a, b = json.load(open("point.json")), json.load(open("s1.json"))
for x, y in zip(a["apps"], b["apps"]):
    assert y["distribution"]["median"] == x["time_s"], (x["time_s"], y["distribution"])
    y.pop("distribution")
a.pop("command"); b.pop("command")
assert a == b
PY

# Refusals: exit 2, nothing written.
"$hetperf" predict -p profile.json -w apps.json --samples 0 -o bad.json >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "--samples 0 accepted"
"$hetperf" predict -p measurement.json -w apps.json --trace-dir sim -o simulated.json >/dev/null || fail "simulated trace"
"$hetperf" calibrate probe.json --trace sim/lu.trace.json -o bad.json >err.txt 2>&1
[[ $? -eq 2 ]] || fail "a simulated trace accepted"
grep -q '\$.backend' err.txt || fail "the refusal does not name \$.backend: $(cat err.txt)"
[[ ! -e bad.json ]] || fail "a refused run wrote its output"
echo "predict_samples: ok"
