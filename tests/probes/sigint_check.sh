#!/usr/bin/env bash
# SIGINT during `hetperf probe`: exit status 130, a measurement file marked incomplete holding what was
# measured, and no scratch file, swap file, cgroup or process left behind. Four runs: one interrupted
# in the CPU probe, one in the middle of the memory curve (whose points so far must be kept), and, as
# root, one whose whole process group gets SIGINT (Ctrl-C) as the curve starts and one killed outright
# (SIGKILL) in the curve, whose leftovers the next probe must remove.
# Args: $1 = hetperf binary.
set -uo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Nothing of run $1 (pid) may remain: files in $dir, its cgroup, its swap file, its processes.
check_clean() {
  local pid=$1
  local left
  left=$(ls -A "$dir" | grep -v -e '^m.json$' -e '^out$' -e '^err$' || true)
  if [ -n "$left" ]; then echo "left behind in $dir: $left"; exit 1; fi
  if ls /sys/fs/cgroup/memory 2>/dev/null | grep -q "hetperf-memory-$pid"; then echo "cgroup left behind"; exit 1; fi
  if grep -q "hetperf-swap.$pid" /proc/swaps; then echo "swap left on"; exit 1; fi
  # Children (forks of this binary) die with hetperf (PR_SET_PDEATHSIG) or are killed by it.
  for p in /proc/[0-9]*; do
    if [ "$(readlink "$p/exe" 2>/dev/null)" = "$exe" ]; then
      echo "process $(basename "$p") ($(tr '\0' ' ' <"$p/cmdline")) left running"; exit 1
    fi
  done
}
exe=$(readlink -f "$1")

# 1. Interrupted in the CPU probe.
"$1" probe --quick --only cpu,memory,disk --dir "$dir" --blocks 32,64,128,256,512 -o "$dir/m.json" \
  >"$dir/out" 2>"$dir/err" &
pid=$!
sleep 6
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -ne 130 ]; then echo "exit status $rc, expected 130"; cat "$dir/err"; exit 1; fi
python3 - "$dir/m.json" <<'PY' || exit 1
import json, sys
j = json.load(open(sys.argv[1]))
assert j["complete"] is False, j["complete"]
reasons = " ".join(s["reason"] for s in j["skipped"])
assert "interrupted" in reasons, j["skipped"]
print("partial file ok; probes present:", list(j["probes"]), "skipped:", [s["probe"] for s in j["skipped"]])
PY
check_clean "$pid"
rm -f "$dir/m.json" "$dir/out" "$dir/err"

# 2. Interrupted in the middle of the memory curve: the points measured so far stay in the file.
"$1" probe --quick --only memory --dir "$dir" -o "$dir/m.json" >"$dir/out" 2>"$dir/err" &
pid=$!
# As root the experiment runs in hetperf-memory-<pid>: wait until load processes have joined the
# reference task there (the curve has started); otherwise give the unconfined curve a few seconds.
cg=/sys/fs/cgroup/memory/hetperf-memory-$pid
for i in $(seq 1 300); do
  if [ -f "$cg/cgroup.procs" ] && [ "$(wc -l <"$cg/cgroup.procs")" -ge 3 ]; then break; fi
  if [ "$(id -u)" -ne 0 ] && [ "$i" -ge 40 ]; then break; fi
  sleep 0.1
done
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -ne 130 ]; then echo "memory run: exit status $rc, expected 130"; cat "$dir/err"; exit 1; fi
python3 - "$dir/m.json" <<'PY' || exit 1
import json, sys
j = json.load(open(sys.argv[1]))
assert j["complete"] is False, j["complete"]
assert [s["probe"] for s in j["skipped"]] == ["memory"], j["skipped"]
m = j["probes"].get("memory")
assert m is not None, "the memory points measured before the signal were dropped: %s" % j["skipped"]
assert len(m["points"]) >= 1, m
assert m["settings"]["curve_complete"] is False, m["settings"]
assert any("interrupted" in n for n in m["notes"]), m["notes"]
print("memory curve kept:", len(m["points"]), "points;", m["notes"][-1])
PY
check_clean "$pid"
rm -f "$dir/m.json" "$dir/out" "$dir/err"

# 3. Ctrl-C in a terminal: SIGINT to the whole process group, the load processes included, once the
# reference task has started (it then waits on a pipe for its next burst; it used to end there on
# EINTR, and hetperf's next write to it raised SIGPIPE, which killed hetperf before any clean-up).
if [ "$(id -u)" -eq 0 ]; then
  setsid "$1" probe --quick --only memory --dir "$dir" -o "$dir/m.json" >"$dir/out" 2>"$dir/err" &
  pid=$!
  cg=/sys/fs/cgroup/memory/hetperf-memory-$pid
  for i in $(seq 1 300); do
    if [ -f "$cg/cgroup.procs" ] && [ "$(wc -l <"$cg/cgroup.procs")" -ge 1 ]; then break; fi
    sleep 0.01
  done
  sleep 0.5  # the reference task now waits for its next burst (exit 141 at 0.2-1 s before the fix)
  kill -INT -- "-$pid"
  wait "$pid"
  rc=$?
  if [ "$rc" -ne 130 ]; then echo "process-group SIGINT: exit status $rc, expected 130"; cat "$dir/err"; exit 1; fi
  check_clean "$pid"
  rm -f "$dir/m.json" "$dir/out" "$dir/err"
  echo "process-group SIGINT: exit 130, nothing left behind"
else
  echo "process-group SIGINT part skipped: needs root for a cgroup and a swap file"
fi

# 4. Killed outright (SIGKILL) in the middle of the memory curve: no handler runs, so its swap file
# (enabled) and its cgroup stay; the next probe, here a small disk probe in the same directory,
# removes them and says so.
if [ "$(id -u)" -eq 0 ]; then
  "$1" probe --quick --only memory --dir "$dir" -o "$dir/m.json" >"$dir/out" 2>"$dir/err" &
  pid=$!
  cg=/sys/fs/cgroup/memory/hetperf-memory-$pid
  for i in $(seq 1 300); do
    if [ -f "$cg/cgroup.procs" ] && [ "$(wc -l <"$cg/cgroup.procs")" -ge 3 ]; then break; fi
    sleep 0.1
  done
  kill -KILL "$pid"
  wait "$pid"
  # Its load processes die with it (PR_SET_PDEATHSIG); they hold the swap file's lock until then.
  for i in $(seq 1 100); do
    [ -z "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] && break
    sleep 0.1
  done
  if ! grep -q "hetperf-swap.$pid" /proc/swaps; then echo "SIGKILL run: no swap file to reclaim (too early?)"; exit 1; fi
  "$1" probe --quick --only disk --dir "$dir" --disk-size 16777216 -o "$dir/d.json" >"$dir/out" 2>"$dir/err" ||
    { echo "the probe after the SIGKILL failed"; cat "$dir/err"; exit 1; }
  grep -q "disabled and removed the swap file $dir/.hetperf-swap.$pid" "$dir/out" ||
    { echo "the probe after the SIGKILL did not say it removed the swap file"; cat "$dir/out"; exit 1; }
  grep -q "removed the memory cgroup .*hetperf-memory-$pid" "$dir/out" ||
    { echo "the probe after the SIGKILL did not say it removed the cgroup"; cat "$dir/out"; exit 1; }
  rm -f "$dir/d.json"
  check_clean "$pid"
  [ -e "$dir/.hetperf-swap.$pid" ] && { echo "swap file left"; exit 1; }
  echo "SIGKILL: the next probe reclaimed the swap file and the cgroup"
else
  echo "SIGKILL part skipped: needs root for a cgroup and a swap file"
fi
echo ok
