#!/usr/bin/env python3
"""Semantic fuzzer: schema-valid hetperf files with extreme values, run through the hetperf executable.

libFuzzer (the *_fuzz.cpp harnesses) mutates bytes and finds parser bugs; this fuzzer writes documents
that parse and pass the schema's shape but mean nonsense: 0, denormals, +-huge, limits of each range,
NaN spelt as text, and combinations across fields (a tiny mips with a huge work). Each input runs one
command (check, predict, schedule from a workload or an SWF trace, export) with a wall-clock and a memory
limit, and fails on
  - a signal (an abort, a crash) or an exit code other than 0, 1, 2 or 3;
  - a hang: more than --timeout seconds;
  - an exit 0 whose output holds a number that is not finite (JSON null or a non-finite float where a
    number was written, "inf" or "nan" in a CSV), or JSON output that does not parse.
--jobs workers (default: one per core) run the inputs, each in a scratch directory of its own. Input n
is drawn from a generator seeded by (--seed, n) alone, so a failure is reproduced by the seed and the
input's number (--input n), whatever the number of workers, and a given --inputs gives the same counts
with any --jobs. The report prints them, with the failing files kept in --keep.
Usage: semantic_fuzz.py HETPERF [--seed N] [--inputs N | --seconds S | --input N] [--jobs N] [--timeout S]
                        [--memory-mib M] [--keep DIR]
"""
import argparse
import json
import math
import multiprocessing
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# Values that sit on the edges: zero, denormals, the limits of a double, the limits of the ranges the
# readers accept, ordinary values, and text where a number belongs.
EXTREME = [0, 5e-324, 2.2250738585072014e-308, 1e-300, 1e-12, 1e-6, 0.5, 1, 3, 1000, 1e6, 1e9, 1e12, 1e15,
           1e18, 1e300, 1.7976931348623157e308, -1, -5e-324, 2**31 - 1, 2**53, 2**63 - 1]
TEXT = ["NaN", "Infinity", "-Infinity", "1e999", "nan"]


# The share of fields that get an extreme value, drawn per input: one extreme field among ordinary ones
# reaches the simulation; many at once mostly test the readers.
extreme_share = 0.5


def number(rng, ordinary):
    """An ordinary value, or (extreme_share of the time) an extreme one, rarely text."""
    r = rng.random()
    if r >= extreme_share:
        return ordinary
    if r < 0.05 * extreme_share:
        return rng.choice(TEXT)
    return rng.choice(EXTREME)


def quantity(rng, ordinary):
    """A number or a distribution with extreme parameters."""
    if rng.random() < 0.7:
        return number(rng, ordinary)
    kind = rng.choice(["exponential", "weibull", "uniform", "lognormal", "hyperexponential", "empirical"])
    if kind == "exponential":
        return {"distribution": kind, "mean": number(rng, ordinary)}
    if kind == "weibull":
        return {"distribution": kind, "shape": number(rng, 1.5), "scale": number(rng, ordinary)}
    if kind == "uniform":
        lo = number(rng, 0)
        return {"distribution": kind, "min": lo, "max": number(rng, ordinary)}
    if kind == "lognormal":
        return {"distribution": kind, "mu": number(rng, 1), "sigma": number(rng, 0.5)}
    if kind == "hyperexponential":
        return {"distribution": kind, "weights": [0.5, 0.5], "means": [number(rng, ordinary), number(rng, 1)]}
    return {"distribution": kind, "samples": [number(rng, ordinary) for _ in range(rng.randint(1, 3))]}


def profile(rng):
    computers = []
    for i in range(rng.randint(1, 3)):
        computers.append({"name": f"c{i}", "cores": rng.choice([1, 2, 64]), "mips": number(rng, 1000),
                          "main_memory_mb": number(rng, 1024), "virtual_memory_mb": number(rng, 0),
                          "disk_read_bytes_per_s": number(rng, 1e8), "disk_write_bytes_per_s": number(rng, 1e8),
                          "overhead_latency_s": number(rng, 1e-4)})
    return {"schema": "hetperf.profile/1", "computers": computers,
            "network": {"latency_s": number(rng, 1e-5), "bandwidth_bytes_per_s": number(rng, 1e8)}}


def process(rng, name):
    p = {"name": name, "mi": quantity(rng, 1000)}
    if rng.random() < 0.5:
        p["disk_read"] = {"ops": quantity(rng, 2), "bytes_per_op": quantity(rng, 4096)}
    if rng.random() < 0.5:
        p["disk_write"] = {"ops": quantity(rng, 2), "bytes_per_op": quantity(rng, 4096)}
    if rng.random() < 0.5:
        p["messages"] = {"count": quantity(rng, 2), "bytes": quantity(rng, 1000)}
    if rng.random() < 0.3:
        p["sleep_s"] = quantity(rng, 1)
    if rng.random() < 0.3:
        p["static_memory_mb"] = number(rng, 10)
    return p


# The band of legitimate long simulations: predict simulates disk operations and messages one by one
# and refuses a run of more than 2e8 of them (unimpp_simulation.cpp, kMaxOperations), which at a few
# million events a second is minutes of work, not a hang. An input between LONG_RUN_OPERATIONS and that
# guard is a large workload (benchmarks/scale.py measures those), not a hostile one: its counts go back
# to ordinary values, so that every input is refused at once or simulated within the time limit.
# Beyond the guard they stay, and are refused.
LONG_RUN_OPERATIONS, GUARD_OPERATIONS = 1e6, 2e8


def largest(q):
    """A count's largest possible value as far as the file says: the number, or a distribution's
    largest numeric parameter; 0 for text (the readers refuse it)."""
    if isinstance(q, dict):
        return max([largest(v) for v in q.values() if not isinstance(v, str)] or [0])
    if isinstance(q, list):
        return max([largest(v) for v in q] or [0])
    return q if isinstance(q, (int, float)) else 0


def operations(w):
    """The disk operations and messages a workload's processes would simulate, at most."""
    total = 0.0
    runs = [(p, 1) for p in w["processes"]] + [(g["process"], g["count"]) for g in w.get("generators", [])]
    for p, count in runs:
        each = sum(largest(p[k][f]) for k, f in (("disk_read", "ops"), ("disk_write", "ops"), ("messages", "count"))
                   if k in p)
        total += count * each
    return total


def workload(rng):
    w = {"schema": "hetperf.workload/1", "seed": rng.randint(0, 2**63 - 1),
         "processes": [process(rng, f"p{i}") for i in range(rng.randint(1, 3))]}
    if rng.random() < 0.3:
        w["generators"] = [{"process": process(rng, "g"), "interarrival_s": quantity(rng, 1),
                            "count": rng.choice([1, 10, 100])}]
    if LONG_RUN_OPERATIONS < operations(w) <= GUARD_OPERATIONS:
        runs = w["processes"] + [g["process"] for g in w.get("generators", [])]
        for p in runs:
            for k, f in (("disk_read", "ops"), ("disk_write", "ops"), ("messages", "count")):
                if k in p:
                    p[k][f] = 2
    return w


def job(rng):
    if rng.random() < 0.5:
        return {"processors": rng.choice([1, 2, 4, 8]), "run_time_s": number(rng, 100),
                "submit_s": number(rng, 0)}
    table = {str(p): number(rng, 10.0 / p) for p in (1, 2, 4)}
    j = {"type": "malleable", "processors": 2, "submit_s": number(rng, 0),
         "app": {"kind": "table", "iterations": rng.choice([1, 10, 1000, 10**5, 10**7]), "iteration_time_s": table},
         "resize": {"data_bytes": number(rng, 1e6)}}
    if rng.random() < 0.5:
        j["resize"]["redistribution_cost"] = {"latency_s": number(rng, 1e-3),
                                              "bandwidth_bytes_per_s": number(rng, 1e8)}
    return j


def jobs_workload(rng):
    return {"schema": "hetperf.workload/1", "scheduler": {"processors": rng.choice([1, 8, 64])},
            "jobs": [job(rng) for _ in range(rng.randint(1, 4))]}


def swf(rng):
    lines = ["; MaxProcs: 64"]
    for j in range(1, rng.randint(2, 6)):
        f = [j, number(rng, 10), -1, number(rng, 100), rng.choice([1, 4, 0, -1, 9999999999999999999, 2**31 - 1]),
             -1, -1, rng.choice([1, 4, -1]), number(rng, 200), -1, 1, 1, 1, -1, 1, -1, -1, -1]
        lines.append(" ".join(str(x) if not isinstance(x, float) else repr(x) for x in f))
    return "\n".join(lines) + "\n"


def dump(value):
    # Text where a number belongs is written as a JSON string ("NaN"), never as a bare token.
    return json.dumps(value, allow_nan=False)


def non_finite(value, path="$"):
    """The path of the first non-finite number or null in a JSON value written by hetperf, or None."""
    if value is None:
        return path + " (null)"
    if isinstance(value, float) and not math.isfinite(value):
        return path
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = non_finite(v, f"{path}[{i}]")
            if found:
                return found
    if isinstance(value, dict):
        for k, v in value.items():
            found = non_finite(v, f"{path}.{k}")
            if found:
                return found
    return None


# Most outputs hold no non-finite number, and walking a large JSON document in Python took three
# quarters of the fuzzer's time. A non-finite value can only be in the text if the text holds a token
# that spells one, so the walk runs only when one of these is found; the verdict is the walk's.
#  - JSON: null, NaN, Infinity (and -Infinity), or a number that overflows a double. Without a run of
#    100 digits a literal's integer part is below 1e100, so it overflows only with an exponent above
#    208: a run of 100 digits, or an exponent of 200 or more, sends the text to the walk.
#  - CSV: a field is "inf", "nan" or "infinity" (signed, any case) once stripped and lowered, so the
#    bytes, ASCII-lowered, hold "inf" or "nan" (no other character lowers to these ASCII letters).
# The searches are bytes operations in C: a regular expression over every character took longer than
# the walk it saves on the documents of tens of megabytes a long timeline makes.
DIGITS_TO_ZERO = bytes.maketrans(b"123456789E", b"000000000e")
JSON_EXPONENT = re.compile(rb"[eE]\+?([0-9]{3,})")


def json_suspect(data):
    if b"null" in data or b"NaN" in data or b"Infinity" in data:
        return True
    shape = data.translate(DIGITS_TO_ZERO)
    if b"0" * 100 in shape:
        return True
    if b"e000" in shape or b"e+000" in shape:
        return any(int(m.group(1)) >= 200 for m in JSON_EXPONENT.finditer(data))
    return False


def csv_suspect(data):
    lowered = data.lower()
    return b"inf" in lowered or b"nan" in lowered


def check_outputs(files):
    for f in files:
        if not os.path.exists(f):
            continue
        data = open(f, "rb").read()
        text = data.decode("utf-8", errors="replace")
        if f.endswith(".json"):
            # Always parsed (in C, fast), so that output which is not JSON is reported too.
            try:
                value = json.loads(text)
            except ValueError as e:
                return f"{os.path.basename(f)}: not JSON: {e}"
            found = non_finite(value) if json_suspect(data) else None
            if found:
                return f"{os.path.basename(f)}: {found} is not a finite number"
        elif f.endswith(".csv") and csv_suspect(data):
            for n, line in enumerate(text.splitlines(), 1):
                for field in line.split(","):
                    if field.strip().lower() in ("inf", "-inf", "nan", "-nan", "infinity"):
                        return f"{os.path.basename(f)}:{n}: '{field}'"
    return None


def make_input(rng, work):
    """Writes one input's files into `work`; returns (name, argv after the executable, outputs)."""
    global extreme_share
    extreme_share = rng.choice([0.03, 0.1, 0.3, 0.6])
    kind = rng.choice(["check", "predict", "predict", "schedule", "swf", "export"])
    p, w, j, t = (os.path.join(work, n) for n in ("p.json", "w.json", "j.json", "t.swf"))
    out = [os.path.join(work, n) for n in ("out.json", "out.csv", "timeline.csv")]
    if kind in ("check", "predict", "export"):
        open(p, "w").write(dump(profile(rng)))
    if kind in ("check", "predict"):
        open(w, "w").write(dump(workload(rng)))
    if kind == "check":
        return kind, ["check", p, w], []
    if kind == "predict":
        return kind, ["predict", "--platform", p, "--workload", w, "--out", out[0], "--csv", out[1],
                      "--timeline-csv", out[2], "--timeline-points", str(rng.choice([0, 100, 100000]))], out
    if kind == "schedule":
        open(j, "w").write(dump(jobs_workload(rng)))
        return kind, ["schedule", "--workload", j, "--out", out[0], "--csv", out[1]], out[:2]
    if kind == "swf":
        open(t, "w").write(swf(rng))
        return kind, ["schedule", "--swf", t, "--policy", rng.choice(["fcfs", "easy", "conservative"]),
                      "--out", out[0], "--csv", out[1]], out[:2]
    xml = os.path.join(work, "p.xml")
    return kind, ["export", "--platform", p, "--simgrid", xml], []


# AddressSanitizer reserves terabytes of address space for its shadow memory, so an address-space
# limit stops an instrumented hetperf before it starts, and instrumented code runs several times
# slower (one schedule took over 50 s under ASan against under 10 s in Release): the sanitized pass
# (scripts/test --sanitize, HETPERF_SANITIZED) runs without the limit, stops an input after
# SANITIZED_SLOWDOWN times the wall-clock bound and reports it without failing; the Release pass holds
# every input to both bounds.
SANITIZED = bool(os.environ.get("HETPERF_SANITIZED"))
SANITIZED_SLOWDOWN = 5


def run_one(hetperf, argv, timeout_s, memory_bytes, env):
    # The limits are set on this worker around the start of hetperf, which inherits them, rather than in
    # a preexec_fn: a preexec_fn makes subprocess fork the whole Python process and run Python in the
    # child, where without one it uses vfork and exec. Only the soft address-space limit is lowered (what
    # allocations are held to, and what hetperf reads as its memory), so that this worker can raise it
    # again once hetperf has started: it reads outputs that may be larger than hetperf's limit.
    as_limit = resource.getrlimit(resource.RLIMIT_AS)
    if not SANITIZED:
        hard = as_limit[1]
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes if hard == resource.RLIM_INFINITY else
                                                min(memory_bytes, hard), hard))
    start = time.monotonic()
    process = None
    try:  # an interrupted fuzzer leaves no hetperf behind, also one interrupted as it starts
        try:
            process = subprocess.Popen([hetperf] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        finally:
            if not SANITIZED:
                resource.setrlimit(resource.RLIMIT_AS, as_limit)
        _, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return None, "", time.monotonic() - start
    except BaseException:
        if process is not None:
            process.kill()
            process.wait()
        raise
    return process.returncode, err.decode(errors="replace"), time.monotonic() - start


def input_numbers(o, worker, jobs, deadline):
    """The inputs one worker runs: every jobs-th number from worker + 1."""
    if o.input:
        if worker == 0:
            yield o.input
        return
    n = worker + 1
    while (o.inputs and n <= o.inputs) or (not o.inputs and time.monotonic() < deadline):
        yield n
        n += jobs


INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


def raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def worker_main(o, worker, jobs, deadline, scratch):
    """One worker: runs its inputs in scratch/files, writes its counts to scratch/result.json."""
    signal.signal(signal.SIGTERM, raise_interrupt)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPTS)  # held by main while it started the workers
    # No core files from crashing inputs: set once here, inherited by every hetperf this worker starts.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # hetperf's own temporary files (if any) stay in the scratch directory, removed with it.
    env = dict(os.environ, TMPDIR=scratch)
    work = os.path.join(scratch, "files")
    os.mkdir(work)
    limit_s = o.timeout * (SANITIZED_SLOWDOWN if SANITIZED else 1)
    # Counts per command and exit code, the failures with their input numbers, the slowest input.
    counts, failures, slowest, ran = {}, [], [0.0, 0], 0
    try:
        for n in input_numbers(o, worker, jobs, deadline):
            ran += 1
            for f in os.listdir(work):
                os.remove(os.path.join(work, f))
            kind, argv, outputs = make_input(random.Random(f"{o.seed}/{n}"), work)
            rc, err, took = run_one(o.hetperf, argv, limit_s, o.memory_mib << 20, env)
            if took > slowest[0]:
                slowest = [took, n]
            key = f"{kind} exit {rc}"
            counts[key] = counts.get(key, 0) + 1
            problem = None
            if rc is None and SANITIZED:
                print(f"semantic fuzz: input {n} ({kind}): stopped after {limit_s} s in the sanitized build "
                      "(not held to the wall-clock bound there; the Release pass is)", flush=True)
            elif rc is None:
                problem = f"no answer within {limit_s} s"
            elif rc < 0 or rc not in (0, 1, 2, 3):
                problem = f"exit {rc}" + (f" (signal {-rc})" if rc < 0 else "") + f": {err.strip()[:300]}"
            elif rc == 0:
                try:
                    problem = check_outputs(outputs)
                except Exception as e:  # reported with its input rather than ending the worker's run
                    problem = f"checking the outputs raised {e!r}"
            if problem:
                failures.append([n, f"input {n} ({kind}, seed {o.seed}): {problem}"])
                if o.keep:
                    dest = os.path.join(o.keep, f"input-{n}")
                    shutil.copytree(work, dest, dirs_exist_ok=True)
                    open(os.path.join(dest, "command"), "w").write(" ".join(["hetperf"] + argv) + "\n")
    except KeyboardInterrupt:
        os._exit(130)
    with open(os.path.join(scratch, "result.json"), "w") as r:
        json.dump({"ran": ran, "counts": counts, "failures": failures, "slowest": slowest}, r)


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("hetperf")
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--inputs", type=int, default=0, help="inputs to run (0: until --seconds)")
    a.add_argument("--seconds", type=float, default=60)
    a.add_argument("--input", type=int, default=0, help="run only this input (a failure's number) of --seed")
    a.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers (default: the cores)")
    a.add_argument("--timeout", type=float, default=10, help="wall-clock limit per input, s")
    a.add_argument("--memory-mib", type=int, default=1024, help="address-space limit per input, MiB")
    a.add_argument("--keep", default="", help="directory where failing inputs are copied")
    o = a.parse_args()
    if o.jobs < 1:
        a.error("--jobs must be at least 1")
    jobs = 1 if o.input else min(o.jobs, o.inputs) if o.inputs else o.jobs
    o.hetperf = os.path.abspath(o.hetperf) if os.sep in o.hetperf else o.hetperf
    # SIGTERM (a CI timeout, kill) ends the run as SIGINT does: workers stopped, scratch removed.
    signal.signal(signal.SIGTERM, raise_interrupt)
    root = tempfile.mkdtemp(prefix="hetperf-semantic-fuzz-")
    workers = []
    start = time.monotonic()
    try:
        deadline = start + o.seconds
        # The interrupts wait until every started worker is listed: a worker started and not yet listed
        # when one came was never stopped, and wrote into the scratch directory as it was removed
        # (the self-test's SIGTERM found it left behind, once in a loaded CI run).
        signal.pthread_sigmask(signal.SIG_BLOCK, INTERRUPTS)
        try:
            for w in range(jobs):
                scratch = os.path.join(root, f"worker-{w}")
                os.mkdir(scratch)
                p = multiprocessing.Process(target=worker_main, args=(o, w, jobs, deadline, scratch))
                p.start()
                workers.append((p, scratch))
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPTS)
        for p, _ in workers:
            p.join()
        results = []
        for w, (p, scratch) in enumerate(workers):
            try:
                with open(os.path.join(scratch, "result.json")) as r:
                    results.append(json.load(r))
            except OSError:
                print(f"semantic fuzz: worker {w} ended with exit {p.exitcode} and no result", file=sys.stderr)
                return 1
    except KeyboardInterrupt:
        for p, _ in workers:
            if p.is_alive():
                p.terminate()
        for p, _ in workers:
            p.join()
        print("semantic fuzz: interrupted", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(root, ignore_errors=True)
    took = time.monotonic() - start
    counts, failures, slowest, n = {}, [], [0.0, 0], 0
    for r in results:
        n += r["ran"]
        for k, c in r["counts"].items():
            counts[k] = counts.get(k, 0) + c
        failures += r["failures"]
        if r["slowest"][0] > slowest[0]:
            slowest = r["slowest"]
    failures.sort()
    summary = ", ".join(f"{k}: {c}" for k, c in sorted(counts.items()))
    print(f"semantic fuzz: {n} inputs, seed {o.seed}, {jobs} workers, {took:.1f} s ({n / took:.1f} inputs/s), "
          f"slowest {slowest[0]:.2f} s (input {slowest[1]}); {summary}")
    for _, f in failures[:20]:
        print("FAIL:", f)
    if failures:
        print(f"semantic fuzz: {len(failures)} failing inputs; one is rerun alone with --seed {o.seed} --input N")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
