#!/usr/bin/env bash
# A crash leaves nothing half-written: hetperf is killed with SIGKILL at points spread over
# its run while it writes each kind of output (a prediction's JSON, the rows it streams to CSV, a
# schedule's JSON, a profile). Each time the output is either the file the user had or the complete
# new one, byte for byte; the temporary a killed writer leaves is removed by the next writer.
set -uo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
# The same content, but for the time a file was made (a profile's created_utc).
same() { cmp -s <(grep -v '"created_utc"' "$1") <(grep -v '"created_utc"' "$2"); }
platform=$src/benchmarks/scale/profile-1000.json

# Under the sanitizers (HETPERF_SANITIZED) every run takes several times longer: a third of the
# processes and jobs keeps the kills spread over runs of the same kind, at a third of the time.
python3 - <<'PY'
import json, os, random
scale = 3 if os.environ.get("HETPERF_SANITIZED") else 1
w = {"schema": "hetperf.workload/1", "seed": 3, "policy": {"placement": "least_loaded"},
     "generators": [{"process": {"name": "job", "mi": {"distribution": "exponential", "mean": 20000},
                                 "disk_read": {"ops": 1, "bytes_per_op": 1048576}},
                     "interarrival_s": {"distribution": "exponential", "mean": 0.0025}, "count": 30000 // scale}]}
json.dump(w, open("w.json", "w"))
# A synthetic SWF trace (fixed seed): 10,000 jobs on 128 processors (3,333 under the sanitizers).
r = random.Random(11)
with open("t.swf", "w") as f:
    f.write("; MaxProcs: 128\n")
    t = 0
    for j in range(1, 10000 // scale + 1):
        t += int(r.expovariate(1 / 60))
        run = int(r.expovariate(1 / 1800)) + 1
        procs = r.choice([1, 2, 4, 8, 16, 32, 64])
        f.write(f"{j} {t} -1 {run} {procs} -1 -1 {procs} {run * 2} -1 1 1 1 -1 1 -1 -1 -1\n")
PY

# check <name> <output file> <command...>: the reference run, then kills spread over its time, more
# of them near the end, where the JSON outputs are written.
check() {
  local name=$1 out=$2
  shift 2
  rm -f "$out"
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1 || fail "$name: the reference run failed"
  end=$(date +%s%N)
  mv "$out" reference
  local ns=$((end - start)) caught=0 kept=0 replaced=0
  local fractions=(0.11 0.22 0.33 0.44 0.56 0.67 0.78 0.89 0.93 0.96 0.99)
  for f in "${fractions[@]}"; do
    echo previous >"$out"
    "$@" >/dev/null 2>&1 &
    local pid=$!
    sleep "$(awk -v ns="$ns" -v f="$f" 'BEGIN { printf "%.3f", ns * f / 1e9 }')"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if [[ $(cat "$out") == previous ]]; then
      ((kept++))
    elif same "$out" reference; then
      ((replaced++))
    else
      fail "$name: killed at $f of its run, $out is neither the previous file nor the complete new one"
    fi
    # The next writer removes what a killed one left (a kill that left no temporary needs no check:
    # the next kill's run starts from the same state, and a whole run ends the loop).
    if ls -A | grep -q "^\.$(basename "$out")\.tmp\."; then
      ((caught++))
      "$@" >/dev/null 2>&1 || fail "$name: the run after a kill failed"
      same "$out" reference || fail "$name: the run after a kill wrote a different file"
      ! ls -A | grep -q "^\.$(basename "$out")\.tmp\." || fail "$name: a killed writer's temporary is left: $(ls -A)"
    fi
  done
  "$@" >/dev/null 2>&1 || fail "$name: the run after the kills failed"
  same "$out" reference || fail "$name: the run after the kills wrote a different file"
  [[ -z $(ls -A | grep "^\.") ]] || fail "$name: left hidden files: $(ls -A)"
  echo "$name: ${#fractions[@]} kills over $((ns / 1000000)) ms: old file kept $kept, new file whole $replaced, $caught killed while writing"
  rm -f reference
}

check "predict --out" p.json "$hetperf" predict --platform "$platform" --workload w.json --out p.json --timeline-points 0
check "predict --csv (streamed)" rows.csv \
  "$hetperf" predict --platform "$platform" --workload w.json --out s.json --csv rows.csv --summary-only --timeline-points 0
check "schedule --out" s.json "$hetperf" schedule --swf t.swf --policy easy --out s.json
check "calibrate --out" profile.json "$hetperf" calibrate "$src/results/vm/measurement.json" --out profile.json
