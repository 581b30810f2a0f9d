#!/usr/bin/env bash
# Bad input: one clear message naming file, JSON path and expectation; exit code 2; no partial
# output; an existing output file is left as it was.
set -uo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
platform=$src/tests/data/two_computers.json
fail() { echo "FAIL: $*"; exit 1; }

expect_error() {  # expect_error <workload text> <substring of message>
  printf '%s' "$1" >w.json
  echo "previous" >out.json
  "$hetperf" predict --platform "$platform" --workload w.json --out out.json >stdout.txt 2>stderr.txt
  rc=$?
  [[ $rc -eq 2 ]] || fail "exit code $rc for: $1"
  grep -qF -- "$2" stderr.txt || fail "message lacks '$2': $(cat stderr.txt)"
  [[ $(wc -l <stderr.txt) -eq 1 ]] || fail "more than one line of error: $(cat stderr.txt)"
  [[ $(cat out.json) == previous ]] || fail "existing output was overwritten"
  [[ -z $(ls -A | grep -v -E '^(w.json|out.json|stdout.txt|stderr.txt)$') ]] || fail "left files: $(ls -A)"
}

head='"schema": "hetperf.workload/1"'
expect_error "{$head, \"processes\": [{\"name\": \"a\", \"mi\": -1}]}" 'w.json: $.processes[0].mi: expected a non-negative number, got -1'
expect_error "{$head, \"processes\": [{\"name\": \"a\"}]}" "w.json: \$.processes[0].mi: missing required field 'mi'"
expect_error "{$head, \"processes\": [{\"name\": \"a\", \"mi\": \"lots\"}]}" 'w.json: $.processes[0].mi: expected a number or a distribution object'
expect_error "{\"schema\": \"hetperf.profile/1\", \"processes\": []}" 'w.json: $.schema: expected a hetperf.workload file'
expect_error "{\"schema\": \"hetperf.workload/9\", \"processes\": []}" 'version 9 of hetperf.workload'
expect_error "{$head, \"processes\": [{\"name\": \"a\", \"mi\": 5,}]}" 'w.json:1:'
expect_error "{$head, \"policy\": {\"placement\": \"psychic\"}, \"processes\": [{\"name\": \"a\", \"mi\": 5}]}" "w.json: \$.policy.placement: unknown placement policy 'psychic'"
expect_error "{$head, \"processes\": [{\"name\": \"a\", \"mi\": 5, \"static_memory_mb\": 5000}]}" 'w.json: $.processes[0].static_memory_mb: process needs 5000'
expect_error "{$head, \"processes\": [{\"name\": \"a\", \"mi\": 5, \"computer\": \"c9\"}]}" 'w.json: $.processes[0].computer: expected the name of a computer'
expect_error "{$head, \"processes\": [{\"name\": \"a\", \"mi\": {\"distribution\": \"exponential\", \"mean\": -2}}]}" 'w.json: $.processes[0].mi.mean: expected a positive number, got -2'
# What nobody writes by hand: a number too large for a double, a truncated file, deep nesting, random
# bytes; each is one message and exit 2, never an abort.
expect_error "{$head, \"processes\": [{\"mp\": 1e400}]}" "w.json:1:55: invalid JSON: number overflow parsing '1e400'"
expect_error "{$head, \"processes\": [{\"name\": \"a\", \"mi\": 5" 'w.json:1:'
# Deep nesting parses, but copying or writing it recursed per level (a crash at 100000 in policy.options).
expect_error "$(python3 -c "print('[' * 100000 + ']' * 100000)")" 'w.json:1:513: JSON nested more than 512 levels deep'
expect_error "{$head, \"policy\": {\"options\": {\"a\": $(python3 -c "print('[' * 100000 + ']' * 100000)")}}, \"processes\": []}" \
  'JSON nested more than 512 levels deep'
# Random bytes from a fixed seed (a fresh draw could start with a newline and move the error to line 2).
expect_error "$(python3 -c "import random, sys; random.seed(13); sys.stdout.buffer.write(bytes(random.randrange(33, 256) for _ in range(4096)))")" 'w.json:1:'
# A file larger than any input may be is refused before it is read.
truncate -s 600M huge.json
"$hetperf" check huge.json 2>stderr.txt
[[ $? -eq 2 ]] && grep -q "huge.json: 629145600 bytes: larger than any hetperf input may be" stderr.txt || fail "huge file: $(cat stderr.txt)"
rm -f huge.json

# Application jobs: the reader names the field; bind names the workload field and the profile's.
expect_error "{$head, \"apps\": [{\"app\": \"lu\", \"ranks\": 2, \"n\": 100, \"r\": 30}]}" 'w.json: $.apps[0].r: expected a block width that divides n = 100, got 30'
# An LU whose simulation would never end in any plausible time: refused at once, naming r.
expect_error "{$head, \"apps\": [{\"app\": \"lu\", \"ranks\": 16, \"n\": 16000000, \"r\": 1}]}" 'w.json: $.apps[0].r: expected a block width whose simulation takes at most 1e+10 operations'
expect_error "{$head, \"apps\": [{\"app\": \"integrate\", \"mapping\": [\"c3\", \"x\"]}]}" "w.json: \$.apps[0].mapping[1]: expected the name of a computer of the profile $platform, got \"x\""
expect_error "{$head, \"apps\": [{\"name\": \"int\", \"app\": \"integrate\"}]}" "$platform: \$.computers[1].integration_step_s: missing, needed by w.json: \$.apps[0] (app \"int\")"

# hetperf check --platform binds the workloads it checks to the profile.
printf '%s' "{$head, \"processes\": [{\"name\": \"a\", \"mi\": 5, \"computer\": \"c9\"}]}" >w.json
"$hetperf" check w.json >stdout.txt 2>stderr.txt || fail "check without --platform: $(cat stderr.txt)"
"$hetperf" check --platform "$platform" w.json >stdout.txt 2>stderr.txt
[[ $? -eq 2 ]] || fail "check --platform of a workload that does not fit: wrong exit code"
grep -qF 'w.json: $.processes[0].computer: expected the name of a computer of the profile' stderr.txt ||
  fail "check --platform message: $(cat stderr.txt)"

# An unreadable file.
echo previous >out.json
"$hetperf" predict --platform "$platform" --workload absent.json --out out.json 2>stderr.txt
[[ $? -eq 2 ]] || fail "missing workload file: wrong exit code"
grep -q "absent.json: cannot read" stderr.txt || fail "missing file message: $(cat stderr.txt)"
# A bad measurement file for calibrate.
printf '{"schema": "hetperf.measurement/1", "host": {"hostname": "x", "cores": 0}, "probes": {}}' >m.json
"$hetperf" calibrate m.json --out p.json 2>stderr.txt
[[ $? -eq 2 ]] || fail "bad measurement: wrong exit code"
grep -qF 'm.json: $.host.cores: expected an integer in [1' stderr.txt || fail "bad measurement message: $(cat stderr.txt)"
[[ ! -e p.json ]] || fail "calibrate wrote output despite the error"
# calibrate --plots where the pictures cannot go (a regular file): the profile the user had stays.
if command -v gnuplot >/dev/null; then
  echo previous >p.json
  echo not-a-directory >plots
  "$hetperf" calibrate "$src/results/vm/measurement.json" --out p.json --plots plots >/dev/null 2>stderr.txt
  [[ $? -ne 0 && $(cat p.json) == previous ]] || fail "calibrate --plots failing replaced the profile: $(head -c 200 p.json)"
fi
# Option values: the message says what was expected, as people write numbers.
"$hetperf" schedule --processors 0 --swf absent.swf 2>stderr.txt
[[ $? -eq 2 ]] || fail "--processors 0: wrong exit code"
grep -qx -- "hetperf: error: --processors: expected a positive number, got 0 (hetperf schedule --help)" stderr.txt ||
  fail "--processors 0 message: $(cat stderr.txt)"
# A testbed the validation cannot run across (one computer): refused before anything is made.
printf '{"schema": "hetperf.testbed/1", "name": "one", "computers": [{"name": "a", "cores": [0], "memory_mb": 256, "link": {"rate_mbit": 100}}]}' >tb.json
"$hetperf" validate --testbed tb.json --out vt 2>stderr.txt
[[ $? -eq 2 ]] || fail "validate --testbed of one computer: wrong exit code"
grep -qF 'tb.json: $.computers: expected at least two computers' stderr.txt || fail "validate --testbed message: $(cat stderr.txt)"
[[ ! -e vt ]] || fail "validate made its output directory despite the error"
echo "bad_input: ok"
