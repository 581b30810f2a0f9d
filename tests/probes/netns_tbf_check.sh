#!/usr/bin/env bash
# Ground truth for the TCP network probe (root only, exit 77 = skipped): two network namespaces of our
# own joined by a veth pair (10.250.<n>.1/.2), both ends shaped with `tbf rate 100mbit`; the probe's
# bandwidth must be within 10% of 100 Mbit/s. A `netem delay 1ms` check follows where the kernel has
# netem; otherwise it reports why it is skipped. Everything is removed afterwards.
# Args: $1 = hetperf binary.
set -uo pipefail
hetperf=$1
if [ "$(id -u)" -ne 0 ]; then echo "skipped: needs root for network namespaces"; exit 77; fi
command -v ip >/dev/null && command -v tc >/dev/null || { echo "skipped: ip/tc missing"; exit 77; }
tag=$$
a=hpA$tag b=hpB$tag
net=$((tag % 200 + 20))
cleanup() {
  ip netns pids "$a" 2>/dev/null | xargs -r kill 2>/dev/null
  ip netns del "$a" 2>/dev/null
  ip netns del "$b" 2>/dev/null
  rm -f "/tmp/hetperf-tbf-$tag.json" "/tmp/hetperf-netem-$tag.json"
}
trap cleanup EXIT
ip netns add "$a" || { echo "skipped: cannot create network namespaces"; exit 77; }
ip netns add "$b" || exit 1
ip link add "va$tag" netns "$a" type veth peer name "vb$tag" netns "$b" || exit 1
ip -n "$a" addr add "10.250.$net.1/24" dev "va$tag"
ip -n "$b" addr add "10.250.$net.2/24" dev "vb$tag"
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set "va$tag" up
ip -n "$b" link set "vb$tag" up
ip netns exec "$a" tc qdisc add dev "va$tag" root tbf rate 100mbit burst 64kb latency 50ms || exit 1
ip netns exec "$b" tc qdisc add dev "vb$tag" root tbf rate 100mbit burst 64kb latency 50ms || exit 1

port=$((30000 + tag % 20000))
ip netns exec "$a" "$hetperf" probe --serve "$port" --bind "10.250.$net.1" --once >/dev/null 2>&1 &
server=$!
status=1
for attempt in 1 2; do
  ip netns exec "$b" "$hetperf" probe --only net --connect "10.250.$net.1:$port" --sizes 1024,1048576 \
    --min-samples 5 --time-cap 3 -o "/tmp/hetperf-tbf-$tag.json" >/dev/null || exit 1
  bw=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['probes']['net']['bandwidth_bytes_per_s'])" \
       "/tmp/hetperf-tbf-$tag.json")
  echo "TCP probe bandwidth through tbf 100mbit: $(python3 -c "print(round($bw*8/1e6,2))") Mbit/s"
  if python3 -c "import sys; sys.exit(0 if abs($bw*8/1e8 - 1) <= 0.10 else 1)"; then status=0; break; fi
  [ "$attempt" -eq 1 ] && { ip netns exec "$a" "$hetperf" probe --serve "$port" --bind "10.250.$net.1" --once >/dev/null 2>&1 & }
done
wait "$server" 2>/dev/null
[ "$status" -eq 0 ] || { echo "FAIL: not within 10% of 100 Mbit/s"; exit 1; }

# Delay: netem. This kernel may lack it ("Specified qdisc kind is unknown"): then say so and skip.
err=$(ip netns exec "$a" tc qdisc replace dev "va$tag" root netem delay 1ms 2>&1)
if [ $? -ne 0 ]; then
  echo "netem delay check skipped: tc says: $err"
  exit 0
fi
ip netns exec "$a" "$hetperf" probe --serve "$port" --bind "10.250.$net.1" --once >/dev/null 2>&1 &
ip netns exec "$b" "$hetperf" probe --only net --connect "10.250.$net.1:$port" --sizes 32 --min-samples 5 \
  --time-cap 2 -o "/tmp/hetperf-netem-$tag.json" >/dev/null || exit 1
python3 - "/tmp/hetperf-netem-$tag.json" <<'PY' || exit 1
import json, sys
t = json.load(open(sys.argv[1]))["probes"]["net"]["pingpong"][0]["one_way_s"]["mean"]
# netem delays one direction by 1 ms: the one-way time (half a round trip) grows by about 0.5 ms.
print("one-way 32 B with netem 1ms on one side:", t)
assert 0.45e-3 <= t <= 0.75e-3, t
PY
