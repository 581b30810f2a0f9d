#!/usr/bin/env bash
# hetperf export --simgrid, checked by SimGrid itself: a heterogeneous profile is exported, SimGrid
# (s4u, Debian's libsimgrid-dev) loads the platform file and runs the master/worker star on it
# (tests/simgrid/master_worker_simgrid.cpp with PLATFORM), and its makespan and mean task response
# match hetperf's prediction of the same work on the profile within 0.5%. The hosts' speeds and
# cores and the links come from the file only.
# Usage: export_roundtrip.sh HETPERF SIMGRID_PROGRAM   (exit 77 = skipped, with the reason)
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
# (workers, tasks, input bytes, result bytes, MI per task, worker MIPS cycled, cores cycled, bandwidth, latency)
cases = [
    (3, 30, 2e6, 3e5, 40, [1000, 1500, 2500], [1, 2, 4], 125e6, 5e-5),
    (8, 120, 5e5, 1e6, 5, [800, 3000], [1], 1.25e9, 2e-5),
]
for workers, tasks, in_b, out_b, mi, speeds, cores, bw, lat in cases:
    def computer(name, mips, c):
        return {"name": name, "cores": c, "mips": mips, "main_memory_mb": 1024, "virtual_memory_mb": 0,
                "disk_read_bytes_per_s": 1e8, "disk_write_bytes_per_s": 1e8, "overhead_latency_s": lat}
    computers = [computer("master", 2000, 1)]
    processes = []
    for w in range(workers):
        computers.append(computer(f"w-{w + 1}", speeds[w % len(speeds)], cores[w % len(cores)]))
        count = tasks // workers + (1 if w < tasks % workers else 0)
        processes.append({"name": f"task-w{w + 1}", "count": count, "computer": f"w-{w + 1}", "mi": mi,
                          "messages": {"count": 2, "receive_bytes": in_b, "send_bytes": out_b, "peer": "master"}})
    p, w, o, x = f"{work}/p.json", f"{work}/w.json", f"{work}/pred.json", f"{work}/platform.xml"
    json.dump({"schema": "hetperf.profile/1", "computers": computers,
               "network": {"latency_s": lat, "bandwidth_bytes_per_s": bw}}, open(p, "w"))
    # FIFO workers: as many tasks at once as a worker has cores, in both (the SimGrid program takes
    # the core counts from the exported file).
    json.dump({"schema": "hetperf.workload/1",
               "policy": {"placement": "round_robin", "discipline": {"default": "fifo", "master": "processor_sharing"}},
               "processes": processes}, open(w, "w"))
    subprocess.run([hetperf, "export", "--platform", p, "--simgrid", x], check=True, stdout=subprocess.DEVNULL)
    xml = open(x).read()
    for c in computers:
        assert f'<host id="{c["name"]}" speed="{c["mips"] * 1e6:.17g}f" core="{c["cores"]}">' in xml, c["name"]
    subprocess.run([hetperf, "predict", "--platform", p, "--workload", w, "--out", o, "--timeline-points", "0"],
                   check=True, stdout=subprocess.DEVNULL)
    h = json.load(open(o))["summary"]
    # MASTER_SPEED, SPEEDS, BANDWIDTH and LATENCY are given as nonsense: they must not be used.
    line = subprocess.run([oracle, str(workers), str(tasks), repr(in_b), repr(out_b), repr(mi * 1e6), "1", "1", "1", "1", x],
                          check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    g = json.loads(line)
    out = []
    for name, a, b in (("makespan", h["makespan_s"], g["makespan_s"]),
                       ("mean response", h["mean_response_s"], g["mean_response_s"])):
        rel = abs(a - b) / b
        out.append(f"{name} hetperf {a:.9g} s, SimGrid on the exported file {b:.9g} s ({100 * rel:.4f}%)")
        assert rel <= 0.005, out[-1]
    print(f"W={workers} T={tasks}: " + "; ".join(out))
PY
