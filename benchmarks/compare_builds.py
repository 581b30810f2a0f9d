#!/usr/bin/env python3
"""Before/after benchmark ratios measured in one run (Hoefler and Belli's rules): every round runs each
benchmark once per build, in an order drawn from a seeded generator (recorded), after one warm-up round
that is discarded; the per-round ratio new/old is paired, so drift between rounds cancels. Prints, per
benchmark, the median ratio and a nonparametric 95% confidence interval of the median (order statistics
from the binomial distribution, Le Boudec), with the number of rounds and the full setup.

usage: compare_builds.py NEW_BENCH_DIR OLD_BENCH_DIR [--rounds N] [--seed S]
"""
import argparse, json, math, os, platform, random, subprocess, sys

CASES = [  # (binary, filter, extra args)
    ("apps_benchmark", "BM_LU_2592_r216_8", ["--benchmark_min_time=0.5"]),
    ("apps_benchmark", "BM_LU_131072_r128_1024/", []),  # not the _tree rows added since
    ("simulator_benchmark", "BM_MillionProcesses", []),
]


def run(bench_dir, binary, flt, extra):
    out = subprocess.run([os.path.join(bench_dir, binary), f"--benchmark_filter={flt}", "--benchmark_format=json"] + extra,
                         check=True, capture_output=True, text=True).stdout
    # The case's time: the sum over its variants of the real time per iteration, in seconds.
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    return sum(b["real_time"] * scale[b["time_unit"]] for b in json.loads(out)["benchmarks"])


def median_ci(xs, confidence=0.95):
    """Median and the order-statistic interval [x_(j), x_(k)] covering it with at least `confidence`."""
    xs = sorted(xs)
    n = len(xs)
    med = xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    cdf = lambda k: sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    best = (0, n - 1)
    for j in range(n // 2, -1, -1):
        k = n - 1 - j
        # x_(j) (0-based) lies above the median when at most j samples lie below it: P = cdf(j).
        if 1 - 2 * cdf(j) >= confidence and j <= k:
            best = (j, k)
            break
    return med, xs[best[0]], xs[best[1]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("new")
    ap.add_argument("old")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    print(f"# setup: {platform.node()}, {os.cpu_count()} cores, {platform.platform()}; rounds {a.rounds} after 1 "
          f"discarded warm-up round; order seed {a.seed}")
    ratios = {c[1]: [] for c in CASES}
    for r in range(a.rounds + 1):
        jobs = [(c, b) for c in CASES for b in ("new", "old")]
        rng.shuffle(jobs)
        times = {}
        for (binary, flt, extra), build in jobs:
            times[(flt, build)] = run(a.new if build == "new" else a.old, binary, flt, extra)
        if r == 0:
            continue  # warm-up
        for c in CASES:
            ratios[c[1]].append(times[(c[1], "new")] / times[(c[1], "old")])
        print(f"round {r}: " + ", ".join(f"{c[1]} {ratios[c[1]][-1]:.3f}" for c in CASES), flush=True)
    print("\n| benchmark | runs | median new/old | 95% CI of the median | min | max |\n|---|---|---|---|---|---|")
    for c in CASES:
        xs = ratios[c[1]]
        med, lo, hi = median_ci(xs)
        print(f"| {c[1]} | {len(xs)} | {med:.3f} | [{lo:.3f}, {hi:.3f}] | {min(xs):.3f} | {max(xs):.3f} |")


if __name__ == "__main__":
    sys.exit(main())
