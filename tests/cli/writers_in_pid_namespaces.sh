#!/usr/bin/env bash
# Two writers of the same output, each in a PID namespace of its own (unshare -p, as in two containers),
# run at the same time 20 times: both succeed (or fail with a message), and the target is always one
# writer's complete file. A writer's temporary is claimed by its lock, not by a PID that means another
# process in the other namespace. Needs unshare -p (root): exit 77, skipped, without it.
set -uo pipefail
hetperf=$1 src=$2
rounds=${HETPERF_ROUNDS:-20}
unshare -p -f true 2>/dev/null || { echo "skipped: unshare -p is not permitted here"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
platform=$src/benchmarks/scale/profile-1000.json
cat >w.json <<JSON
{"schema": "hetperf.workload/1", "seed": 3,
 "generators": [{"process": {"name": "job", "mi": {"distribution": "exponential", "mean": 20000}},
                 "interarrival_s": {"distribution": "exponential", "mean": 0.0025}, "count": 3000}]}
JSON
# run <N> <options>: hetperf as PID N + 2 of a new PID namespace, after N short-lived processes, so the
# two writers have PIDs that, in the other's namespace, name a process that has exited.
run() {
  local n=$1
  shift
  unshare -p -f sh -c 'n=$1; shift; while [ "$n" -gt 0 ]; do /bin/true; n=$((n - 1)); done; "$@"; exit $?' \
    sh "$n" "$hetperf" predict --platform "$platform" --workload w.json --timeline-points 0 "$@"
}
run 1 --seed 1 --out a.json >/dev/null 2>&1 || fail "the reference run with seed 1 failed"
run 2 --seed 2 --out b.json >/dev/null 2>&1 || fail "the reference run with seed 2 failed"
same() { cmp -s <(grep -v '"command"' "$1") <(grep -v '"command"' "$2"); }
for ((k = 1; k <= rounds; k++)); do
  run 1 --seed 1 --out p.json >/dev/null 2>one.log &
  one=$!
  run 2 --seed 2 --out p.json >/dev/null 2>two.log &
  two=$!
  wait "$one"; rc1=$?
  wait "$two"; rc2=$?
  for rc in $rc1 $rc2; do
    [[ $rc == 0 ]] || fail "round $k: a writer failed (exit $rc1 and $rc2): $(cat one.log two.log)"
  done
  same p.json a.json || same p.json b.json || fail "round $k: p.json is neither writer's complete file"
done
leftovers=$(ls -A | grep '^\.' || true)
[[ -z $leftovers ]] || fail "temporaries left: $leftovers"
echo "$rounds rounds of two writers in separate PID namespaces: both succeeded each time, p.json always one writer's whole file"
