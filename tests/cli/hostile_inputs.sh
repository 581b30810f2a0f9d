#!/usr/bin/env bash
# Inputs that parse but mean nonsense, and the file system's corners: each is one message naming the
# file and the field (exit 2), or an environment error (exit 3), within seconds; never an abort, a
# hang, a number that is not finite, or an output the user had replaced or lost.
set -uo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
platform=$src/tests/data/two_computers.json

# expect <exit code> <substring of stderr> <command...>: within 20 s, one line on stderr, and out.json
# (if the command names it) as it was.
expect() {
  local code=$1 text=$2
  shift 2
  echo previous >out.json
  timeout 20 "$@" >stdout.txt 2>stderr.txt
  local rc=$?
  [[ $rc == "$code" ]] || fail "exit $rc (expected $code) for: $* : $(head -c 600 stderr.txt)"
  grep -qF -- "$text" stderr.txt || fail "message lacks '$text' for: $*: $(head -c 600 stderr.txt)"
  [[ $(wc -l <stderr.txt) -eq 1 ]] || fail "more than one line on stderr for: $*: $(head -c 600 stderr.txt)"
  [[ $(wc -c <stderr.txt) -lt 1000 ]] || fail "a message of $(wc -c <stderr.txt) bytes for: $*"
  [[ $(cat out.json) == previous ]] || fail "out.json was replaced by: $*"
}
predict() { expect "$1" "$2" "$hetperf" predict --platform "${3:-$platform}" --workload w.json --out out.json; }
workload() { printf '{"schema": "hetperf.workload/1", "processes": [%s]}' "$1" >w.json; }
profile() {  # profile <computer fields> [network fields]
  printf '{"schema": "hetperf.profile/1", "computers": [{"name": "c", "cores": 1, "mips": 1000, "main_memory_mb": 256,
    "disk_read_bytes_per_s": 1e8, "disk_write_bytes_per_s": 1e8, "overhead_latency_s": 1e-4 %s}],
    "network": {"latency_s": 1e-5, "bandwidth_bytes_per_s": 1e8 %s}}' "$1" "${2:-}" >p.json
}

# --- predict: figures that would take forever are refused before any simulation work ---
workload '{"name": "a", "mi": 1000}'
profile ', "mips": 5e-324' && sed -i 's/"mips": 1000, //' p.json
predict 2 'w.json: $.processes[0].mi: its MI at the mips of the fastest computer (p.json) would take' p.json
workload '{"name": "a", "mi": 1e300}'
predict 2 'w.json: $.processes[0].mi:'
# Placed on a computer far slower than the fastest: refused once placed, before it computes.
printf '{"schema": "hetperf.profile/1", "computers": [{"name": "fast", "mips": 1000, "main_memory_mb": 256},
  {"name": "slow", "mips": 5e-324, "main_memory_mb": 256}]}' >p2.json
workload '{"name": "a", "mi": 1000}, {"name": "b", "mi": 1000}'
predict 2 "w.json: \$.processes[1].mi: its MI at the mips of computer 'slow' (p2.json) would take inf s" p2.json
# Figures beyond any machine are refused where they are read.
profile ', "mips": 1.7976931348623157e308' && sed -i 's/"mips": 1000, //' p.json
predict 2 'p.json: $.computers[0].mips: expected a positive number of MIPS up to 1e12, got 1.7976931348623157e+308' p.json
workload '{"name": "a", "mi": 1, "sleep_s": 1e300}'
predict 2 'w.json: $.processes[0].sleep_s: its sleep would take 1e+300 s, beyond any plausible time (1e+12 s)'
workload '{"name": "a", "mi": 1, "disk_read": {"ops": 10, "bytes_per_op": 1e300}}'
predict 2 'w.json: $.processes[0].disk_read: its reads'
workload '{"name": "a", "mi": 1, "disk_read": {"ops": 1e15, "bytes_per_op": 1}}'
predict 2 'w.json: $.processes[0].disk_read.ops: the run would simulate 1e+15 disk operations and messages'
workload '{"name": "a", "mi": 1, "messages": {"count": 1e9, "bytes": 1}}'
predict 2 'w.json: $.processes[0].messages.count: the run would simulate 1e+09'
workload '{"name": "a", "mi": 1, "messages": {"count": 100, "bytes": 1}}'
profile '' ', "latency_s": 1e11' && sed -i 's/"latency_s": 1e-5, //' p.json
predict 2 'w.json: $.processes[0].messages: its messages at the network' p.json
profile '' ', "latency_s": 1e300' && sed -i 's/"latency_s": 1e-5, //' p.json
predict 2 'p.json: $.network.latency_s: expected a number of seconds in [0, 1e12], got 1e+300' p.json
# A distribution whose draws are infinite: an error naming the field, not "cpu": null.
workload '{"name": "a", "mi": {"distribution": "weibull", "shape": 1e-300, "scale": 1}}'
predict 2 'w.json: $.processes[0].mi: expected a distribution whose mean is a finite number (these parameters give inf)'
# Draws beyond a double from a distribution whose mean is finite: refused at the draw or by the guard.
workload '{"name": "a", "mi": {"distribution": "exponential", "mean": 1.5e308}}'
predict 2 'w.json: $.processes[0].mi: '
# The guard comes before the timelines: with or without them, at once.
workload '{"name": "a", "mi": 1e300}'
expect 2 'w.json: $.processes[0].mi:' "$hetperf" predict --platform "$platform" --workload w.json --out out.json --timeline-points 100000

# An arrival past any plausible time (a double's step at 1e16 s is 2 s): refused where it is drawn, with or
# without timelines (100000 points over 1e17 s spun for minutes).
workload '{"name": "a", "mi": 1, "arrival_s": 1e300}'
predict 2 'w.json: $.processes[0].arrival_s: process a would arrive at 1e+300 s, beyond any plausible time'
printf '{"schema": "hetperf.workload/1", "generators": [{"process": {"name": "g", "mi": 1}, "interarrival_s": 1e15,
  "count": 100}]}' >w.json
expect 2 'w.json: $.generators[0].interarrival_s: process g-2 would arrive at 1e+15 s' "$hetperf" predict \
  --platform "$platform" --workload w.json --out out.json --timeline-points 100000

# --- schedule: the same guard for jobs ---
sched() { expect "$1" "$2" "$hetperf" schedule "${@:3}" --out out.json; }
jobs() { printf '{"schema": "hetperf.workload/1", "scheduler": {"processors": 8}, "jobs": [%s]}' "$1" >j.json; }
jobs '{"processors": 2, "run_time_s": 1e300}'
sched 2 'j.json: $.jobs[0].run_time_s: a run on its slowest processors would take 1e+300 s' --workload j.json
jobs '{"type": "malleable", "processors": 2, "app": {"kind": "table", "iterations": 4, "iteration_time_s": {"2": 1, "4": 0.5}},
       "resize": {"data_bytes": 1e300, "redistribution_cost": {"latency_s": 0, "bandwidth_bytes_per_s": 1}}}'
sched 2 'j.json: $.jobs[0].resize: moving its data_bytes' --workload j.json
jobs '{"type": "malleable", "processors": 2, "app": {"kind": "table", "iterations": 4, "iteration_time_s": {"2": 1, "4": 0.5}},
       "resize": {"data_bytes": 1e6, "redistribution_cost": {"latency_s": 1.7976931348623157e308, "bandwidth_bytes_per_s": 1}}}'
sched 2 'j.json: $.jobs[0].resize: moving its data_bytes' --workload j.json
# Iterations whose records would not fit the memory allowed are refused before the run. Under
# AddressSanitizer an address-space limit stops the program before it starts (its shadow memory):
# the sanitized pass leaves this case to the Release pass, and says so.
jobs '{"type": "malleable", "processors": 2, "app": {"kind": "table", "iterations": 10000000, "iteration_time_s": {"2": 1, "4": 0.5}}}'
if [[ -n ${HETPERF_SANITIZED:-} ]]; then
  echo "hostile_inputs: the memory-limit case not checked (sanitized build: no address-space limit under ASan)"
else
  expect 2 'j.json: $.jobs[0].app.iterations: 10000000 iterations' \
    bash -c "ulimit -v 2000000; exec '$hetperf' schedule --workload j.json --out out.json"
fi
# An SWF count beyond any cluster's arithmetic, under each backfilling policy.
printf '1 0 -1 10 9999999999999999999 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n' >t.swf
for policy in easy conservative; do
  sched 2 't.swf:1: field 5 (allocated processors): expected an integer in [-1, 2147483647], got '"'9999999999999999999'" --swf t.swf --processors 8 --policy $policy
done

# --- strict readers ---
workload '{"name": "a", "mi": 1, "mi": 2}'
predict 2 'w.json: $.processes[0].mi: duplicate key'
workload '{"name": "a", "mi": 1}, {"name": "a", "mi": 2}'
predict 2 'w.json: $.processes[1].name: expected a name no other process has, got "a" (also the name of $.processes[0])'
printf '{"schema": "hetperf.workload/1", "processes": [{"name": "a", "mi": 1}]}\n\0{"junk": 1}' >w.json
predict 2 'w.json:2:1: a NUL byte'
workload '{"name": "a", "mi": 1}'
expect 2 'expected an integer in [0, 9223372036854775807], got 99999999999999999999999' \
  "$hetperf" predict --platform "$platform" --workload w.json --out out.json --seed 99999999999999999999999
expect 2 '/dev/zero: cannot read: it is a character device, expected a regular file' "$hetperf" check /dev/zero
key=$(head -c 1000000 /dev/zero | tr '\0' k)
printf '{"schema": "hetperf.workload/1", "%s": 1}' "$key" >w.json
predict 2 'unknown field'

# --- outputs ---
workload '{"name": "a", "mi": 1000}'
run_predict() { "$hetperf" predict --platform "$platform" --workload w.json "$@"; }
# A target that is not a regular file is refused, and left as it was.
mkfifo fifo
for target in /dev/null fifo "$work"; do
  expect 2 "$target: cannot write: it is a" "$hetperf" predict --platform "$platform" --workload w.json --out out.json --csv "$target"
done
[[ -c /dev/null && -p fifo ]] || fail "a refused target was replaced"
# The same file twice, however spelt, is refused before anything is written.
expect 2 'named twice as an output' "$hetperf" predict --platform "$platform" --workload w.json --out out.json --csv ./out.json
# A symbolic link is written through: the file it names is replaced, the link stays.
echo old >real.json
ln -s real.json link.json
run_predict --out link.json >/dev/null 2>&1 || fail "predict --out link.json failed"
[[ -L link.json ]] || fail "the link was replaced"
grep -q '"schema": "hetperf.prediction/' real.json || fail "the file behind the link was not written"
# A failure on one output leaves every other as it was: the CSV's folder cannot be made.
echo x >blocker
expect 3 'blocker: cannot create directory' "$hetperf" predict --platform "$platform" --workload w.json --out out.json --csv blocker/rows.csv
# A write error on stdout is an error.
"$hetperf" check "$platform" >/dev/full 2>stderr.txt
rc=$?
[[ $rc == 3 ]] || fail "check > /dev/full: exit $rc"
grep -qF 'cannot write to standard output: No space left on device' stderr.txt || fail "check > /dev/full: $(cat stderr.txt)"
echo "hostile inputs: each refused with one message naming file and field, outputs as they were"
