#!/usr/bin/env bash
# Differential test against SimGrid: the master/worker star (heterogeneous FIFO workers, asymmetric
# messages, every input sent at t = 0) predicted by hetperf and simulated by SimGrid's s4u
# (tests/simgrid/master_worker_simgrid.cpp, CM02 on a star of split-duplex links) for several sizes;
# makespan and mean task response must agree within 0.5%.
# Usage: master_worker_diff.sh HETPERF SIMGRID_PROGRAM   (exit 77 = skipped, with the reason)
set -euo pipefail
hetperf=$1 oracle=$2
if [[ ! -x $oracle ]]; then
  echo "skipped: the SimGrid oracle was not built (libsimgrid-dev missing when CMake ran)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$hetperf" "$oracle" "$work" <<'PY'
import json, subprocess, sys
hetperf, oracle, work = sys.argv[1:4]
# (workers, tasks, input bytes, result bytes, MI per task, worker speeds in MI/s cycled, bandwidth, latency)
cases = [
    (1, 2, 1e6, 1e5, 10, [1000], 125e6, 1e-4),
    (3, 12, 2e6, 3e5, 40, [1000, 1500, 2500], 125e6, 5e-5),
    (10, 200, 5e5, 2e4, 5, [800, 1200, 2000, 3000], 100e6, 1e-4),
    (50, 1000, 1e5, 1e6, 2, [1000, 1700], 1.25e9, 2e-5),
]
worst = 0.0
for workers, tasks, in_b, out_b, mi, speeds, bw, lat in cases:
    computers = [{"name": "master", "cores": 1, "mips": 2000, "main_memory_mb": 1024, "virtual_memory_mb": 0,
                  "disk_read_bytes_per_s": 1e8, "disk_write_bytes_per_s": 1e8, "overhead_latency_s": lat}]
    processes = []
    for w in range(workers):
        computers.append({"name": f"w-{w + 1}", "cores": 1, "mips": speeds[w % len(speeds)], "main_memory_mb": 1024,
                          "virtual_memory_mb": 0, "disk_read_bytes_per_s": 1e8, "disk_write_bytes_per_s": 1e8,
                          # lo = l: the per-message CPU overhead o = (lo - l) / 2 is 0, as in SimGrid
                          "overhead_latency_s": lat})
        count = tasks // workers + (1 if w < tasks % workers else 0)
        if count:
            processes.append({"name": f"task-w{w + 1}", "count": count, "computer": f"w-{w + 1}", "mi": mi,
                              "messages": {"count": 2, "receive_bytes": in_b, "send_bytes": out_b, "peer": "master"}})
    profile = {"schema": "hetperf.profile/1", "computers": computers,
               "network": {"latency_s": lat, "bandwidth_bytes_per_s": bw}}
    workload = {"schema": "hetperf.workload/1",
                "policy": {"placement": "round_robin", "discipline": {"default": "fifo", "master": "processor_sharing"}},
                "processes": processes}
    p, w, o = f"{work}/p.json", f"{work}/w.json", f"{work}/pred.json"
    json.dump(profile, open(p, "w"))
    json.dump(workload, open(w, "w"))
    subprocess.run([hetperf, "predict", "--platform", p, "--workload", w, "--out", o, "--timeline-points", "0"],
                   check=True, stdout=subprocess.DEVNULL)
    h = json.load(open(o))["summary"]
    line = subprocess.run([oracle, str(workers), str(tasks), repr(in_b), repr(out_b), repr(mi * 1e6), repr(2000e6),
                           ",".join(repr(s * 1e6) for s in speeds), repr(bw), repr(lat)],
                          check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    g = json.loads(line)
    errs = []
    for name, a, b in (("makespan", h["makespan_s"], g["makespan_s"]),
                       ("mean response", h["mean_response_s"], g["mean_response_s"])):
        rel = abs(a - b) / b
        worst = max(worst, rel)
        errs.append(f"{name} hetperf {a:.9g} s, SimGrid {b:.9g} s ({100 * rel:.4f}%)")
    print(f"W={workers} T={tasks}: " + "; ".join(errs))
print(f"largest difference {100 * worst:.4f}% (bound 0.5%)")
sys.exit(0 if worst <= 0.005 else 1)
PY
