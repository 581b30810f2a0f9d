# Shared by the kill_*_set.sh tests (sourced): a command writing several outputs as one set is killed
# with SIGKILL at random points of its run, and each time its targets must be all the files the user
# had or all the complete new ones, byte for byte; or, killed between two renames, the journals are
# there and the next writer of any one target completes the set before anything else.
#
# The test, in its own working directory, sets
#   targets=(...)       every output of one run, paths relative to the working directory; the first is
#                       the first one the command renames into place
#   old_run, new_run    functions writing the user's previous set and the new one (different in every
#                       target; a target the old run does not write is absent in the old set)
#   new_command=(...)   the new run as one process (hetperf itself, so that the kill lands on it)
# and may redefine, after sourcing this file,
#   same FILE REFERENCE whether FILE is REFERENCE's generation (here: byte for byte)
# then calls kill_set_check NAME. HETPERF_KILLS sets how many points (default 10), HETPERF_KILL_SEED the
# seed they are drawn from (default 37); both are printed with the counts.

kill_set_fail() { echo "FAIL: $*"; exit 1; }
same() { cmp -s "$1" "$2"; }

# The next writer of one target: a predict that claims it (which completes any set the target's journal
# names) and then fails on an unknown policy, writing nothing itself.
kill_set_next_writer() {
  [[ -f .next-writer.json ]] || cat >.next-writer.json <<'JSON'
{"schema": "hetperf.workload/1", "processes": [{"name": "p", "mi": 1}]}
JSON
  "$hetperf" predict --platform "$src/tests/data/two_computers.json" --workload .next-writer.json --out "$1" \
    --policy no_such_policy >/dev/null 2>&1
  [[ $? -eq 2 ]] || kill_set_fail "the next writer of $1 did not fail as meant to"
  rm -f .next-writer.json
}

# Keeps a run's outputs under DIR (absent ones absent) and removes them from their places.
kill_set_keep() {
  local dir=$1 f
  for f in "${targets[@]}"; do
    if [[ -e $f ]]; then
      mkdir -p "$dir/$(dirname "$f")"
      mv "$f" "$dir/$f"
    fi
  done
}

# Whether target $1 is as in the set kept under $2 (absent there: absent here).
kill_set_is() {
  if [[ -e $2/$1 ]]; then [[ -f $1 ]] && same "$1" "$2/$1"; else [[ ! -e $1 ]]; fi
}

# "old" or "new" when every target is that set's, else what each one is.
kill_set_generation() {
  local f olds=0 news=0 kinds=()
  for f in "${targets[@]}"; do
    if kill_set_is "$f" .kill-set/old; then kinds+=("$f:old"); ((olds++))
    elif kill_set_is "$f" .kill-set/new; then kinds+=("$f:new"); ((news++))
    else kinds+=("$f:other"); fi
  done
  if ((olds == ${#targets[@]})); then echo old
  elif ((news == ${#targets[@]})); then echo new
  else echo "${kinds[*]}"; fi
}

# The user's previous set in place, its files an hour old (one cp and one touch: a set may have many).
kill_set_restore_old() {
  rm -f "${targets[@]}"
  cp -R .kill-set/old/. .
  local f present=()
  for f in "${targets[@]}"; do [[ -e $f ]] && present+=("$f"); done
  ((${#present[@]} == 0)) || touch -d '1 hour ago' "${present[@]}"
}

# What the targets' directories hold, hidden files too.
kill_set_beside() {
  local f
  for f in "${targets[@]}"; do if [[ $f == */* ]]; then echo "${f%/*}"; else echo .; fi; done | sort -u |
    while read -r d; do ls -A "$d"; done | sort -u
}

# Any commit journal beside a target. (Not grep -q: under pipefail, ls killed by the early exit's
# SIGPIPE would make the pipeline fail when a journal is found.)
kill_set_journals() {
  [[ -n $(kill_set_beside | grep '\.commit$') ]]
}

kill_set_check() {
  local name=$1 kills=${HETPERF_KILLS:-10} seed=${HETPERF_KILL_SEED:-37} f
  # Scratch directories (where gnuplot draws) are made in the test's directory, where the last check
  # looks for those of killed runs.
  mkdir -p .kill-set/tmp
  export TMPDIR=$PWD/.kill-set/tmp
  rm -rf "${targets[@]}"
  old_run >/dev/null 2>&1 || kill_set_fail "$name: the old run failed"
  kill_set_keep .kill-set/old
  local start ns
  start=$(date +%s%N)
  new_run >/dev/null 2>&1 || kill_set_fail "$name: the new run failed"
  ns=$(($(date +%s%N) - start))
  for f in "${targets[@]}"; do [[ -f $f ]] || kill_set_fail "$name: the new run did not write $f"; done
  kill_set_keep .kill-set/new
  for f in "${targets[@]}"; do
    same .kill-set/new/"$f" .kill-set/old/"$f" &&
      kill_set_fail "$name: $f is the same in both sets: the check could not tell them apart"
  done
  # A reference point for "the first target has been replaced": older than any new file, newer than
  # the restored old ones.
  touch -d '30 minutes ago' .kill-set/stamp

  RANDOM=$seed
  local k kept=0 replaced=0 rolled=0 at pid state
  for ((k = 0; k < kills; k++)); do
    kill_set_restore_old
    # One point in three the moment the first target is replaced; of the others, every other one in
    # [0, 1.1) of the reference run's time, the others in [0.8, 1.1), where the outputs are written:
    # some land after the run has ended.
    at=$(awk -v ns="$ns" -v r="$RANDOM" -v k="$k" 'BEGIN { f = r / 32768; printf "%.4f", ns / 1e9 * (k % 2 ? 0.8 + 0.3 * f : 1.1 * f) }')
    "${new_command[@]}" >/dev/null 2>&1 &
    pid=$!
    if ((k % 3 == 2)); then
      # Were the targets renamed one by one after their own writes, this catches the set half new.
      at="the replacement of ${targets[0]}"
      while [[ ! ${targets[0]} -nt .kill-set/stamp ]] && kill -0 "$pid" 2>/dev/null; do :; done
    else
      sleep "$at"
      at="$at s"
    fi
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    state=$(kill_set_generation)
    case $state in
      old) ((kept++)) ;;
      new) ((replaced++)) ;;
      *)
        # Killed between two renames: past the commit point, so the journals say so, and the next writer
        # of any target completes the set before anything else.
        kill_set_journals ||
          kill_set_fail "$name: killed at $at of a run of $((ns / 1000000)) ms (kill $k, seed $seed), the targets are a mix without a journal: $state; beside them: $(kill_set_beside | tr '\n' ' ')"
        kill_set_next_writer "${targets[$((k % ${#targets[@]}))]}"
        state=$(kill_set_generation)
        [[ $state == new ]] ||
          kill_set_fail "$name: killed at $at (kill $k, seed $seed) between renames: the next writer left $state"
        ((rolled++))
        ;;
    esac
  done
  # The next writer removes what the killed ones left, and writes the whole new set.
  new_run >/dev/null 2>&1 || kill_set_fail "$name: the run after the kills failed"
  state=$(kill_set_generation)
  [[ $state == new ]] || kill_set_fail "$name: the run after the kills wrote $state"
  local leftovers
  leftovers=$(kill_set_beside | grep '^\.' | grep -v '^\.kill-set$')
  [[ -z $leftovers ]] || kill_set_fail "$name: temporaries left after a complete run: $leftovers"
  # Scratch directories of killed runs are removed by the next run that makes one (ScratchDir).
  leftovers=$(ls -A "$TMPDIR" | grep '^hetperf-')
  [[ -z $leftovers ]] || kill_set_fail "$name: scratch directories of killed runs left after a complete run: $leftovers"
  echo "$name: $kills kills (seed $seed) over runs of $((ns / 1000000)) ms: the old set kept $kept times," \
    "the new set whole $replaced times, killed between renames and completed by the next writer $rolled times"
}
