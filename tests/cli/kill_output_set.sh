#!/usr/bin/env bash
# A command's outputs are one set: `hetperf predict` writing --out, --csv and --timeline-csv is killed
# with SIGKILL at random points of its run, and each time the three targets are either all the files
# the user had or all the complete new ones, byte for byte; or, killed between two renames, the
# journals are there and the next writer of the set completes it before anything else. HETPERF_KILLS sets how many
# points (default 10); HETPERF_KILL_SEED the seed they are drawn from.
set -uo pipefail
hetperf=$1 src=$2
kills=${HETPERF_KILLS:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
platform=$src/benchmarks/scale/profile-1000.json
scale=1
[[ -n ${HETPERF_SANITIZED:-} ]] && scale=3
cat >w.json <<JSON
{"schema": "hetperf.workload/1", "seed": 3, "policy": {"placement": "least_loaded"},
 "generators": [{"process": {"name": "job", "mi": {"distribution": "exponential", "mean": 20000}},
                 "interarrival_s": {"distribution": "exponential", "mean": 0.0025}, "count": $((20000 / scale))}]}
JSON
targets=(p.json p.csv t.csv)
command=("$hetperf" predict --platform "$platform" --workload w.json --out p.json --csv p.csv --timeline-csv t.csv)
run() { "${command[@]}" "$@"; }

# The old set (seed 1) and the new one (seed 2), kept aside.
run --seed 1 >/dev/null 2>&1 || fail "the run with seed 1 failed"
for f in "${targets[@]}"; do mv "$f" "old.$f"; done
start=$(date +%s%N)
run --seed 2 >/dev/null 2>&1 || fail "the run with seed 2 failed"
ns=$(($(date +%s%N) - start))
for f in "${targets[@]}"; do mv "$f" "new.$f"; done
for f in "${targets[@]}"; do cmp -s "old.$f" "new.$f" && fail "$f is the same for both seeds: the check could not tell them apart"; done

# generation: "old" or "new" when every target is that generation's file, else what each one is.
generation() {
  local kinds=()
  for f in "${targets[@]}"; do
    if cmp -s "$f" "old.$f"; then kinds+=(old); elif cmp -s "$f" "new.$f"; then kinds+=(new); else kinds+=("$f:other"); fi
  done
  if [[ ${kinds[*]} == "old old old" ]]; then echo old
  elif [[ ${kinds[*]} == "new new new" ]]; then echo new
  else echo "${kinds[*]}"; fi
}

RANDOM=${HETPERF_KILL_SEED:-37}
kept=0 replaced=0 rolled=0
for ((k = 0; k < kills; k++)); do
  for f in "${targets[@]}"; do cp "old.$f" "$f"; done
  # One point in three the moment the first target is replaced; of the others, every other one in [0, 1.1) of the reference run, the others in [0.8, 1.1), where the outputs are
  # rendered and written: some land after the run has ended.
  at=$(awk -v ns="$ns" -v r="$RANDOM" -v k="$k" 'BEGIN { f = r / 32768; printf "%.4f", ns / 1e9 * (k % 2 ? 0.8 + 0.3 * f : 1.1 * f) }')
  touch -d '1 hour ago' "${targets[@]}"
  "${command[@]}" --seed 2 >/dev/null 2>&1 &  # not through run(): $! must be hetperf itself
  pid=$!
  if ((k % 3 == 2)); then
    # The moment the first target is replaced: were the others renamed one by one after their own
    # writes, this catches the set half new.
    at="on p.json's replacement"
    while [[ ! p.json -nt w.json ]] && kill -0 "$pid" 2>/dev/null; do :; done
  else
    sleep "$at"
  fi
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  state=$(generation)
  case $state in
    old) ((kept++)) ;;
    new) ((replaced++)) ;;
    *)
      # Killed between two renames: past the commit point, the journals say so, and the next writer
      # of any target completes the set before anything else (here one that then fails at once).
      [[ -n $(ls -A | grep '\.commit$') ]] || fail "killed at $at (s) of a run of $((ns / 1000000)) ms, the targets are a mix without a journal: $state"
      "${command[@]}" --seed 2 --policy no_such_policy >/dev/null 2>&1
      [[ $(generation) == new ]] || fail "killed at $at (s) between renames: the next writer left $(generation)"
      ((rolled++))
      ;;
  esac
done
# The next writer removes what the killed ones left, and writes the whole new set.
run --seed 2 >/dev/null 2>&1 || fail "the run after the kills failed"
[[ $(generation) == new ]] || fail "the run after the kills wrote $(generation)"
leftovers=$(ls -A | grep '^\.' || true)
[[ -z $leftovers ]] || fail "temporaries left after a complete run: $leftovers"
echo "$kills kills over runs of $((ns / 1000000)) ms: the old set kept $kept times, the new set whole $replaced times," \
  "killed between renames and completed by the next writer $rolled times"
