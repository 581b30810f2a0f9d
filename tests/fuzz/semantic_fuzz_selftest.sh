#!/usr/bin/env bash
# The semantic fuzzer finds what it is there to find: run against a wrapper of hetperf that plants one
# fault in what hetperf did (a NaN, an overflowing number, an inf in a CSV, JSON cut short, a signal, a
# hang), it fails and names the fault; against the wrapper planting nothing it passes, with the same
# counts for one worker as for two (an input is its seed and number, whoever runs it). An interrupted
# run leaves nothing in the temporary directory.
set -uo pipefail
fuzzer=$1 hetperf=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
mkdir tmp
export TMPDIR=$work/tmp
# The wrapper: hetperf's run, then PLANT applied to its outputs when it exited 0.
cat >fake-hetperf <<'SH'
#!/usr/bin/env bash
out= csv=
args=("$@")
for ((i = 0; i < $#; i++)); do
  case ${args[i]} in --out) out=${args[i + 1]} ;; --csv) csv=${args[i + 1]} ;; esac
done
"$REAL_HETPERF" "$@"
rc=$?
((rc == 0)) || exit $rc
case $PLANT in
  json-nan) [[ -n $out ]] && sed -i '0,/{/s//{"planted": NaN, /' "$out" ;;
  json-overflow) [[ -n $out ]] && sed -i '0,/{/s//{"planted": 2e308, /' "$out" ;;
  json-null) [[ -n $out ]] && sed -i '0,/{/s//{"planted": null, /' "$out" ;;
  json-cut) [[ -n $out ]] && truncate -s -2 "$out" ;;
  csv-inf) [[ -n $csv ]] && echo "planted, -Inf" >>"$csv" ;;
  signal) [[ -n $out ]] && kill -SEGV $$ ;;
  hang) [[ -n $out ]] && sleep 5 ;;
esac
exit 0
SH
chmod +x fake-hetperf
export REAL_HETPERF=$hetperf
fuzz() { python3 "$fuzzer" "$work/fake-hetperf" --seed 5 --inputs 24 "$@"; }

# Nothing planted: a pass, and the same counts with one worker as with two.
PLANT=none fuzz --jobs 1 >one.txt 2>&1 || fail "nothing planted, one worker: $(cat one.txt)"
PLANT=none fuzz --jobs 2 >two.txt 2>&1 || fail "nothing planted, two workers: $(cat two.txt)"
counts() { sed -n 's/^semantic fuzz: .*); //p' "$1"; }
[[ -n $(counts one.txt) && $(counts one.txt) == "$(counts two.txt)" ]] ||
  fail "the counts depend on the workers: $(counts one.txt) against $(counts two.txt)"
grep -qE "(predict|schedule|swf) exit 0" one.txt || fail "no input wrote outputs, nothing to plant a fault in: $(cat one.txt)"

# Each fault: the run fails, names it, and keeps the input with its command. (The sanitized pass
# reports a slow input without failing, by design: no hang planted there.)
cases=("json-nan:is not a finite number" "json-overflow:is not a finite number"
  "json-null:(null) is not a finite number" "json-cut:not JSON" "csv-inf:'.*-Inf'" "signal:exit -11 (signal 11)")
[[ -n ${HETPERF_SANITIZED:-} ]] || cases+=("hang:no answer within 1.0 s")
for case in "${cases[@]}"; do
  plant=${case%%:*} expected=${case#*:}
  rm -rf keep && mkdir keep
  PLANT=$plant fuzz --jobs 2 --timeout 1 --keep keep >out.txt 2>&1
  rc=$?
  [[ $rc -eq 1 ]] || fail "$plant: exit $rc, expected 1: $(cat out.txt)"
  grep -q "^FAIL: input [0-9]* .*$expected" out.txt || fail "$plant: no failure naming '$expected': $(cat out.txt)"
  [[ -n $(ls keep) && -s $(ls -d keep/input-* | head -1)/command ]] || fail "$plant: no input kept in --keep"
done

# Interrupted (SIGTERM, as a CI timeout does) while its workers run: it stops, its scratch goes.
PLANT=none python3 "$fuzzer" "$work/fake-hetperf" --seconds 60 --jobs 2 >term.txt 2>&1 &
pid=$!
until [[ -n $(find tmp -name files 2>/dev/null) ]]; do kill -0 "$pid" 2>/dev/null || fail "ended early: $(cat term.txt)"; done
kill -TERM "$pid"
wait "$pid"
rc=$?
[[ $rc -ne 0 ]] || fail "a fuzzer stopped by SIGTERM exited 0"
[[ -z $(ls -A tmp) ]] || fail "the interrupted fuzzer left $(ls -A tmp)"
echo "semantic fuzzer self-test: nothing planted passes with the same counts for 1 and 2 workers; ${#cases[@]} planted faults found"
