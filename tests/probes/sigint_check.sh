#!/usr/bin/env bash
# SIGINT during `hetperf probe`: exit status 130, a measurement file marked incomplete holding what was
# measured, and no scratch file, swap file or cgroup left behind. Args: $1 = hetperf binary.
set -uo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
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
left=$(ls -A "$dir" | grep -v -e '^m.json$' -e '^out$' -e '^err$' || true)
if [ -n "$left" ]; then echo "left behind in $dir: $left"; exit 1; fi
if ls /sys/fs/cgroup/memory 2>/dev/null | grep -q "hetperf-memory-$pid"; then echo "cgroup left behind"; exit 1; fi
if grep -q "hetperf-swap.$pid" /proc/swaps; then echo "swap left on"; exit 1; fi
echo ok
