#!/usr/bin/env python3
"""The scale benchmark set: whole `hetperf` commands at the sizes that matter, timed against a baseline
build in one interleaved run (A B A B ...: each round runs every case on the new build, then on the
baseline, so that drift of the machine between rounds falls on both alike). Prints per case the median
wall time and peak memory of each build (GNU time: elapsed and maximum resident set size) and the ratio
new / baseline: its median and min/max over the rounds.

Cases (inputs written to a scratch directory; the SWF by benchmarks/batch/long_queue_swf.py):
  lu-1k, lu-4k, lu-16k   LU, basic, r = 128, on 1,024 / 4,096 / 16,384 one-core computers: n = 131,072,
                          262,144, 524,288 (`hetperf predict` of one "apps" job)
  lu-16k-1m              the same on 16,384 computers with n = 1,048,576: the issue's LU acceptance run
                          (not in the default set: minutes per run)
  processes-1m           1M processes, benchmarks/scale/stream-1m.json, --summary-only
  processes-1m-full      the same 1M processes with every row in the JSON and a CSV (default output mode)
  processes-10m          10M processes, benchmarks/scale/stream-10m.json, streamed to CSV (--summary-only --csv)
  star-100k              the master/worker star of benchmarks/master_worker_benchmark.cpp, W = 10, 100,000
                          tasks, default output mode
  star-100k-w1000        the same star with W = 1,000 workers
  swf-300k-easy, swf-300k-conservative
                          300,000 jobs on 1,024 processors whose queue stays above a thousand jobs,
                          `hetperf schedule --summary-only` (swf-20k-, -40k-, -80k-: the same generator's
                          shorter traces, not in the default set)

A run past --timeout seconds is stopped and counted as "> timeout"; that build's case is not run again.

usage: scale.py NEW_BIN_DIR BASELINE_BIN_DIR [--rounds N] [--cases REGEX] [--timeout S] [--keep DIR]
       (a BIN_DIR holds the `hetperf` executable: BUILD/bin)
"""
import argparse, json, os, platform, re, shutil, signal, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# The set; --cases '^swf-' adds the 20k, 40k and 80k-job traces of the batch measurements.
DEFAULT_CASES = r"^(lu-\d+k$|processes-|star-|swf-300k)"


def lu_inputs(work, computers, n):
    profile = {"schema": "hetperf.profile/1",
               "computers": [{"name": "c", "count": computers, "cores": 1, "mips": 1000, "main_memory_mb": 4096,
                              "disk_read_bytes_per_s": 1e8, "disk_write_bytes_per_s": 1e8,
                              "overhead_latency_s": 1e-6,
                              "kernels": [{"kernel": "dgemm", "powers": [3], "coefficients_s": [2e-10]},
                                          {"kernel": "dtrsm", "powers": [3], "coefficients_s": [1e-10]},
                                          {"kernel": "dgetrf", "powers": [3], "coefficients_s": [1e-10]},
                                          {"kernel": "dlaswp", "powers": [2], "coefficients_s": [1e-9]}]}],
               "network": {"latency_s": 2e-5, "bandwidth_bytes_per_s": 1e9}}
    workload = {"schema": "hetperf.workload/1",
                "apps": [{"name": "lu", "app": "lu", "ranks": computers, "n": n, "r": 128, "variant": "basic"}]}
    p, w = os.path.join(work, f"lu-{computers}-profile.json"), os.path.join(work, f"lu-{computers}-{n}.json")
    json.dump(profile, open(p, "w"))
    json.dump(workload, open(w, "w"))
    return p, w


def star_inputs(work, workers, tasks):
    """The scenario of master_worker_benchmark.cpp's star_profile and star_workload."""
    def computer(name, mips):
        return {"name": name, "cores": 1, "mips": mips, "main_memory_mb": 1024, "virtual_memory_mb": 0,
                "disk_read_bytes_per_s": 100e6, "disk_write_bytes_per_s": 100e6, "overhead_latency_s": 1e-4}
    speeds = [1000, 1500, 2000]
    profile = {"schema": "hetperf.profile/1",
               "computers": [computer("master", 2000)] + [computer(f"w-{w + 1}", speeds[w % 3]) for w in range(workers)],
               "network": {"latency_s": 1e-4, "bandwidth_bytes_per_s": 125e6}}
    processes = []
    for w in range(workers):
        count = tasks // workers + (1 if w < tasks % workers else 0)
        if count:
            processes.append({"name": f"task-w{w + 1}", "count": count, "computer": f"w-{w + 1}", "mi": 10,
                              "messages": {"count": 2, "receive_bytes": 1e6, "send_bytes": 1e5, "peer": "master"}})
    workload = {"schema": "hetperf.workload/1",
                "policy": {"placement": "round_robin",
                           "discipline": {"default": "fifo", "master": "processor_sharing"}},
                "processes": processes}
    p, w = os.path.join(work, f"star-{workers}-profile.json"), os.path.join(work, f"star-{workers}.json")
    json.dump(profile, open(p, "w"))
    json.dump(workload, open(w, "w"))
    return p, w


def cases(work):
    """(name, arguments after `hetperf`, jobs of the SWF it reads or 0); inputs but the SWFs written to `work`."""
    out = []
    for name, computers, n in (("lu-1k", 1024, 131072), ("lu-4k", 4096, 262144), ("lu-16k", 16384, 524288),
                               ("lu-16k-1m", 16384, 1048576)):
        p, w = lu_inputs(work, computers, n)
        out.append((name, ["predict", "-p", p, "-w", w, "-o", os.path.join(work, "out.json")], 0))
    scale = os.path.join(HERE, "scale")
    out.append(("processes-1m", ["predict", "-p", f"{scale}/profile-1000.json", "-w", f"{scale}/stream-1m.json",
                                 "--summary-only", "-o", os.path.join(work, "out.json")], 0))
    out.append(("processes-1m-full", ["predict", "-p", f"{scale}/profile-1000.json", "-w", f"{scale}/stream-1m.json",
                                      "--csv", os.path.join(work, "out.csv"), "-o", os.path.join(work, "out.json")], 0))
    out.append(("processes-10m", ["predict", "-p", f"{scale}/profile-1000.json", "-w", f"{scale}/stream-10m.json",
                                  "--summary-only", "--csv", os.path.join(work, "out.csv"),
                                  "-o", os.path.join(work, "out.json")], 0))
    for workers, name in ((10, "star-100k"), (1000, "star-100k-w1000")):
        p, w = star_inputs(work, workers, 100000)
        out.append((name, ["predict", "-p", p, "-w", w, "-o", os.path.join(work, "out.json")], 0))
    for jobs in (20000, 40000, 80000, 300000):
        swf = os.path.join(work, f"long-queue-{jobs // 1000}k.swf")
        for policy in ("easy", "conservative"):
            out.append((f"swf-{jobs // 1000}k-{policy}", ["schedule", "--swf", swf, "--policy", policy, "--summary-only",
                                                        "-o", os.path.join(work, "out.json")], jobs))
    return out


def write_swf(work, jobs):
    swf = os.path.join(work, f"long-queue-{jobs // 1000}k.swf")
    if not os.path.exists(swf):
        with open(swf, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "batch", "long_queue_swf.py"), "--jobs", str(jobs)],
                           stdout=f, check=True)


def timed(binary, args, timeout):
    """(wall s, peak RSS MB), or None past the timeout."""
    cmd = ["/usr/bin/time", "-f", "%e %M", binary] + args
    # Its own process group: past the timeout, hetperf goes too, not only GNU time above it.
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return None
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{err[-2000:]}")
    wall, kib = err.strip().splitlines()[-1].split()
    return float(wall), int(kib) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("new")
    ap.add_argument("baseline")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cases", default=DEFAULT_CASES)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--keep", help="write the inputs here and keep them")
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="hetperf-scale-")
    os.makedirs(work, exist_ok=True)
    try:
        chosen = [c for c in cases(work) if re.search(a.cases, c[0])]
        for _, _, jobs in chosen:
            if jobs:
                write_swf(work, jobs)
        builds = {"new": os.path.join(a.new, "hetperf"), "baseline": os.path.join(a.baseline, "hetperf")}
        print(f"# {platform.node()}, {os.cpu_count()} cores, {platform.platform()}; {a.rounds} rounds, A B A B order "
              f"(new, then baseline, per case and round); timeout {a.timeout:g} s\n# new: {builds['new']}\n"
              f"# baseline: {builds['baseline']}")
        runs = {(c[0], b): [] for c in chosen for b in builds}
        timed_out = set()
        for _ in range(a.rounds):
            for name, args, _ in chosen:
                for b in ("new", "baseline"):
                    if (name, b) in timed_out:
                        continue
                    r = timed(builds[b], args, a.timeout)
                    if r is None:
                        timed_out.add((name, b))
                    else:
                        runs[(name, b)].append(r)
        report(chosen, runs, timed_out, a.timeout)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


def report(chosen, runs, timed_out, timeout):
    print(f"{'case':24} {'new s':>9} {'new MB':>8} {'base s':>9} {'base MB':>8} {'ratio':>7} {'min':>7} {'max':>7} runs")
    for name, _, _ in chosen:
        new, base = runs[(name, "new")], runs[(name, "baseline")]
        def med(xs, i):
            return f"{statistics.median(x[i] for x in xs):9.3f}" if xs else f"{'>' + format(timeout, 'g'):>9}"
        line = f"{name:24} {med(new, 0)} {med(new, 1)[1:]} {med(base, 0)} {med(base, 1)[1:]}"
        if new and base:
            # Rounds pair up from the first: a build that timed out is not run in later rounds.
            ratios = [x[0] / y[0] for x, y in zip(new, base)]
            line += f" {statistics.median(ratios):7.3f} {min(ratios):7.3f} {max(ratios):7.3f} {len(ratios)}"
            if timed_out & {(name, "new"), (name, "baseline")}:
                line += " (then a timeout)"
        elif new and (name, "baseline") in timed_out:
            line += f" {'<' + format(max(x[0] for x in new) / timeout, '.3f'):>7}" + " " * 16 + f" {len(new)}"
        print(line)


if __name__ == "__main__":
    main()
