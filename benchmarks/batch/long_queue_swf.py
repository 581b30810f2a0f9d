#!/usr/bin/env python3
"""A synthetic SWF trace whose queue stays long: the batch benchmarks' and tests' input.

A burst of BURST jobs at time 0 fills the queue; the others arrive at an offered load a little over the
capacity (LOAD, counting the work of the jobs killed at their limit as they run it), so backfilling
policies see a waiting queue of more than a thousand jobs for the whole trace, growing slowly. Widths
2^k up to MAX_WIDTH (small ones more likely: weight 1/(k+1)) -- narrow enough that waiting jobs are
many, not a few wide ones -- log-uniform run times from 10 s to 6 h, requested times 1-3x the run time,
and a tenth of the jobs running past their requested time (killed at that limit on replay); a
twentieth of the jobs share their submit time with the job before. Deterministic: Python's Mersenne
Twister seeded with --seed.

usage: long_queue_swf.py --jobs N [--procs P] [--max-width W] [--burst B] [--load L] [--seed S] > trace.swf
"""
import argparse, math, random, sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, required=True)
    ap.add_argument("--procs", type=int, default=1024)
    ap.add_argument("--max-width", type=int, default=64)
    ap.add_argument("--burst", type=int, default=2500)
    ap.add_argument("--load", type=float, default=1.05)
    ap.add_argument("--seed", type=int, default=38)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    kmax = int(math.log2(min(a.max_width, a.procs))) + 1  # widths 1 .. max_width
    weights = [1.0 / (k + 1) for k in range(kmax)]
    mean_width = sum(w * 2**k for k, w in enumerate(weights)) / sum(weights)
    min_run, max_run = 10.0, 6 * 3600.0
    # The mean run time as replayed: log-uniform, a tenth cut to 0.3-0.95 of it (0.625 on average).
    mean_run = (max_run - min_run) / math.log(max_run / min_run) * (0.9 + 0.1 * 0.625)
    mean_gap = mean_width * mean_run / (a.load * a.procs)
    out = sys.stdout
    out.write(f"; Synthetic long-queue trace: benchmarks/batch/long_queue_swf.py --jobs {a.jobs} --procs {a.procs} "
              f"--max-width {a.max_width} --burst {a.burst} --load {a.load} --seed {a.seed}\n; MaxProcs: {a.procs}\n")
    t = 0.0
    for i in range(1, a.jobs + 1):
        if i > a.burst and rng.random() >= 0.05:
            t += -mean_gap * math.log(1 - rng.random())
        width = 2 ** rng.choices(range(kmax), weights)[0]
        run = math.floor(min_run * math.exp(rng.random() * math.log(max_run / min_run)))
        if rng.random() < 0.1:
            requested = max(1, math.floor(run * rng.uniform(0.3, 0.95)))  # killed at this limit
        else:
            requested = math.ceil(run * rng.uniform(1, 3))
        out.write(f"{i} {math.floor(t)} -1 {run} {width} -1 -1 {width} {requested} -1 1 -1 -1 -1 -1 -1 -1 -1\n")


if __name__ == "__main__":
    main()
