#!/usr/bin/env bash
# `hetperf testbed down` leaves nothing behind (root only; exit 77 = skipped): neither after a `kill -9`
# of `up` midway (which also makes the next `up` refuse until `down` ran), nor after a complete `up`
# with a process running inside a computer. Checks `ip netns list`, `ip link`, `tc qdisc`, the cgroup
# trees, /etc/netns, the UTS namespace mounts and the process table.
# Args: $1 = hetperf binary.
set -uo pipefail
hetperf=$1
if [ "$(id -u)" -ne 0 ]; then echo "skipped: the testbed needs root (network namespaces, tc, cgroups)"; exit 77; fi
command -v ip >/dev/null && command -v tc >/dev/null || { echo "skipped: ip/tc missing (iproute2)"; exit 77; }
tag=$$
name=k$((tag % 1000000))
state=$(mktemp -d)
work=$(mktemp -d)
cleanup() {
  "$hetperf" testbed --state-dir "$state" down --name "$name" >/dev/null 2>&1
  rm -rf "$state" "$work"
}
trap cleanup EXIT
cpus=$(python3 -c "
import os; c = sorted(os.sched_getaffinity(0)); print(','.join(str(c[i % len(c)]) for i in range(4)))")
IFS=, read -r c0 c1 c2 c3 <<<"$cpus"
cat >"$work/spec.json" <<EOF
{"schema": "hetperf.testbed/1", "name": "$name", "subnet": "10.233.$((tag % 200 + 20)).0/24",
 "computers": [
  {"name": "${name}a", "cores": [$c0], "memory_mb": 256, "link": {"rate_mbit": 100}},
  {"name": "${name}b", "cores": [$c1], "cpu_share": 0.5, "memory_mb": 256, "link": {"rate_mbit": 100}},
  {"name": "${name}c", "cores": [$c2], "memory_mb": 256, "link": {"rate_mbit": 10}},
  {"name": "${name}d", "cores": [$c3], "cpu_share": 0.25, "memory_mb": 256, "link": {"rate_mbit": 10}}]}
EOF
tb() { "$hetperf" testbed --state-dir "$state" "$@"; }

# Nothing of the testbed anywhere; prints what is left and fails otherwise.
check_clean() {
  local left=""
  left+=$(ip netns list | grep -- "hetperf-$name-")
  left+=$(ip -o link show | grep -E -- " (hb-$name|hv-$name-[0-9]+)[:@]")
  left+=$(tc qdisc show | grep -E -- "dev hv-$name-")
  left+=$(find /sys/fs/cgroup -maxdepth 3 -name "hetperf-testbed-$name" 2>/dev/null)
  left+=$(ls -d /etc/netns/hetperf-"$name"-* 2>/dev/null)
  left+=$(grep -- "$state" /proc/self/mountinfo)
  left+=$(ls "$state")
  left+=$(grep -l -- "hetperf-testbed-$name/" /proc/[0-9]*/cgroup 2>/dev/null)
  if [ -n "$left" ]; then echo "FAIL ($1): left behind:"; echo "$left"; exit 1; fi
  echo "clean after $1"
}

# 1. kill -9 of `up` midway: once its state file lists a few resources (of 33), before it is complete.
# Started directly (not through the shell function tb), so that $! is hetperf itself.
"$hetperf" testbed --state-dir "$state" up --spec "$work/spec.json" --step-delay-ms 60 >/dev/null 2>&1 &
up=$!
for _ in $(seq 1 200); do
  n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['resources']))" "$state/$name.json" 2>/dev/null || echo 0)
  [ "$n" -ge 12 ] && break
  sleep 0.02
done
kill -9 "$up"
wait "$up" 2>/dev/null
complete=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['complete'])" "$state/$name.json")
[ "$complete" = "False" ] || { echo "FAIL: up finished before it was killed (state complete=$complete)"; exit 1; }
ip netns list | grep -q -- "hetperf-$name-" || { echo "FAIL: up was killed before it made a namespace"; exit 1; }
out=$(tb up --spec "$work/spec.json" 2>&1)
status=$?
[ "$status" -eq 3 ] && grep -q "half-built" <<<"$out" || { echo "FAIL: up over a half-built testbed: exit $status: $out"; exit 1; }
echo "up refused: $out"
tb down --name "$name" || { echo "FAIL: down after kill -9 of up"; cat "$state/$name.json"; grep -- "$state" /proc/self/mountinfo; exit 1; }
check_clean "kill -9 of up after $n resources"

# 2. A complete testbed with a process left running inside a computer.
tb up --spec "$work/spec.json" >/dev/null || { echo "FAIL: up"; exit 1; }
[ "$(tb exec "${name}b" -- hostname)" = "${name}b" ] || { echo "FAIL: hostname inside ${name}b"; exit 1; }
"$hetperf" testbed --state-dir "$state" exec "${name}c" -- sleep 300 &
sleeper=$!
for _ in $(seq 1 100); do grep -q "hetperf-testbed-$name/${name}c" "/proc/$sleeper/cgroup" 2>/dev/null && break; sleep 0.02; done
grep -q "hetperf-testbed-$name/${name}c" "/proc/$sleeper/cgroup" || { echo "FAIL: exec did not join the cgroup"; exit 1; }
tb down >/dev/null || { echo "FAIL: down"; exit 1; }
wait "$sleeper" 2>/dev/null
kill -0 "$sleeper" 2>/dev/null && { echo "FAIL: the process inside ${name}c survived down"; exit 1; }
check_clean "down with a process inside"
