#!/usr/bin/env python3
"""Writes w1.json, w2.json and derivation.json: the ReSHAPE paper's workloads W1 and W2 as hetperf
workloads, every number derived from the paper's own inputs only -- its Figure 3a, its static
turnarounds (Tables 4 and 5, static column), its problem sizes (Tables 2 and 3), its stated sweet spot
and arrival times -- and never from its dynamic results (Tables 4 and 5, dynamic column; the W2 event
times; the utilisations), which are what results/scheduling compares against.

Each number is labelled in derivation.json:
  taken   -- printed in the paper, used as is;
  derived -- computed from taken numbers by the rule written beside it;
  assumed -- the paper does not give it; our choice, with the reason.

Iteration-time curves T(p), one iteration = one of the job's ten tasks (section 4: "a single job
consisted of ten iterations"):
  * LU (21000): the shape of the paper's only measured scaling curve, LU 12000 in Figure 3a
    (2, 4, 6, 9, 12, 16 processors: 129.63 ... 74.91 s), interpolated linearly in log p, with the
    processor axis stretched by 30/12 so that its minimum (12 processors for 12000) falls on the
    sweet spot section 4.1.1 states for 21000 (30 processors); scaled so that T(p0) is the static
    turnaround / 10 at the initial size p0.
  * MM, Jacobi, 2D FFT: no measured curve or sweet spot in the paper; assumed ideal speedup,
    T(p) = T(p0) p0 / p, over the counts of Table 2 (their communication is small against their
    computation by the usual estimates -- SUMMA: 2 N^2/sqrt(p) words against 2 N^3/p flops; dense
    Jacobi: an N-word allgather against 2 N^2 flops per sweep; 2D FFT: one all-to-all of the array
    against 5 N^2 log2 N^2 flops, both ~1/p. LU's own curve shows that such estimates can be
    optimistic on System X: this is the main assumption of the reproduction).
  * Master-worker: 20000 fixed-time work units per iteration (Table 1) shared by the p - 1 workers:
    T(p) = T(p0) (p0 - 1) / (p - 1) (derived from the application's description).
W1 and W2 are anchored separately: the paper's static times for the same application and count
disagree between the workloads (2D FFT on 4: 84.0 s per iteration in W1, 26.9 s in W2).

Redistribution: t = l + s/b with s = data_bytes (1 - min/max) / min, the bytes each kept processor
exchanges (the simulator's model, docs/scheduling.md), l and b fitted by least squares to Figure 3a's
five expansions of LU 12000 (8.00, 7.74, 5.25, 4.86, 4.41 s), and used for every job's own data.

Run: python3 generate_workloads.py [DIR]  (deterministic; rewrites the three files beside it, or in DIR)."""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The ReSHAPE paper Figure 3a: LU 12000, iteration time (s) per processor count, and the redistribution cost
# (s) of each expansion from the previous count.
FIG3A_P = [2, 4, 6, 9, 12, 16]
FIG3A_T = [129.63, 112.52, 82.31, 79.61, 69.85, 74.91]
FIG3A_REDIST = [(2, 4, 8.00), (4, 6, 7.74), (6, 9, 5.25), (9, 12, 4.86), (12, 16, 4.41)]
FIG3A_N = 12000
FIG3A_SWEET = 12  # its minimum: Figure 3a, "Delta T = -5.06 ... resized back to 12"
LU_SWEET = 30     # section 4.1.1: "problem size 21000 has a sweet spot at 30 processors"

# Table 2 counts up to the 36 processors of section 4.2.
LU_COUNTS = [4, 6, 9, 12, 16, 20, 25, 30, 36]
MM_COUNTS = [4, 8, 16, 20, 25, 35]
JACOBI_COUNTS = [4, 8, 10, 16, 20, 32]
FFT_COUNTS = [2, 4, 8, 16, 32]
MW_COUNTS = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22]  # Table 2 starts at 4; W1 starts it on 2 (Table 4)

ITERATIONS = 10  # section 4: "a single job consisted of ten iterations"


def fig3a_at(x):
    """Figure 3a's LU 12000 time at x processors, linear in log p between the measured points (the
    end segments extended)."""
    lp = [math.log(p) for p in FIG3A_P]
    lx = math.log(x)
    i = 0
    while i < len(lp) - 2 and lx > lp[i + 1]:
        i += 1
    f = (lx - lp[i]) / (lp[i + 1] - lp[i])
    return FIG3A_T[i] + f * (FIG3A_T[i + 1] - FIG3A_T[i])


def fit_redistribution():
    """Least squares t = l + s/b over Figure 3a's expansions, s in bytes per kept processor."""
    data = FIG3A_N * FIG3A_N * 8.0
    xs = [data * (1 - lo / hi) / lo for lo, hi, _ in FIG3A_REDIST]
    ys = [t for _, _, t in FIG3A_REDIST]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    latency = my - slope * mx
    ss_res = sum((y - latency - slope * x) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    return latency, 1 / slope, 1 - ss_res / ss_tot, [latency + slope * x for x in xs]


LATENCY_S, BANDWIDTH, R2, REDIST_FITTED = fit_redistribution()


def lu_table(t0, p0):
    k = FIG3A_SWEET / LU_SWEET
    base = fig3a_at(p0 * k)
    return {str(p): round(t0 * fig3a_at(p * k) / base, 3) for p in LU_COUNTS}


def ideal_table(t0, p0, counts):
    return {str(p): round(t0 * p0 / p, 3) for p in counts}


def mw_table(t0, p0):
    return {str(p): round(t0 * (p0 - 1) / (p - 1), 3) for p in MW_COUNTS}


def resize(data_bytes, **extra):
    r = dict(extra)
    r["data_bytes"] = data_bytes
    if data_bytes > 0:
        r["redistribution_cost"] = {"latency_s": round(LATENCY_S, 4), "bandwidth_bytes_per_s": round(BANDWIDTH, 1)}
    return r


def malleable(name, submit, p0, table, rs):
    return {"name": name, "type": "malleable", "submit_s": submit, "processors": p0,
            "app": {"kind": "table", "iterations": ITERATIONS, "iteration_time_s": table}, "resize": rs}


def lu(submit, p0, static_s):
    return malleable("LU", submit, p0, lu_table(static_s / ITERATIONS, p0),
                     resize(21000 * 21000 * 8, topology="nearly_square", problem_size=21000))


def mm(submit, p0, static_s):
    # C = A B: three N x N matrices of doubles are redistributed.
    return malleable("MM", submit, p0, ideal_table(static_s / ITERATIONS, p0, MM_COUNTS),
                     resize(3 * 14000 * 14000 * 8, topology="nearly_square", problem_size=14000))


def mw(submit, p0, static_s):
    return malleable("Master-worker", submit, p0, mw_table(static_s / ITERATIONS, p0), resize(0))


def jacobi(submit, p0, static_s):
    return malleable("Jacobi", submit, p0, ideal_table(static_s / ITERATIONS, p0, JACOBI_COUNTS),
                     resize(8000 * 8000 * 8))


def fft(submit, p0, static_s):
    # Complex doubles, 16 bytes per element.
    return malleable("2D FFT", submit, p0, ideal_table(static_s / ITERATIONS, p0, FFT_COUNTS),
                     resize(8192 * 8192 * 16, topology="divides", problem_size=8192))


def workload(name, description, jobs):
    return {"schema": "hetperf.workload/1", "name": name, "description": description,
            "scheduler": {"policy": "reshape", "processors": 36}, "jobs": jobs}


# Static turnarounds and initial allocations: Tables 4 and 5 (taken). Nobody waits under static
# scheduling in either workload (W1 needs 24 processors at most, W2 36), so the static turnaround is
# ten iterations at the initial size.
w1 = workload("W1", "ReSHAPE paper, workload 1 (Tables 3-4): LU and MM at t=0, Master-worker at 450 s, Jacobi and "
              "2D FFT at 465 s, on 36 processors. App models derived from the paper's Figure 3a and static "
              "times: see generate_workloads.py and derivation.json.",
              [lu(0, 6, 4482.60), mm(0, 8, 3661.20), mw(450, 2, 147.47), jacobi(465, 4, 3266.40),
               fft(465, 4, 840.00)])
# W2: arrival times of LU and Jacobi are not stated (assumed 0, as W1's first jobs); 2D FFT ran
# statically (section 4.2.2: "the static scheduled 2D FFT application"): a rigid job.
w2_fft = {"name": "2D FFT", "submit_s": 650, "processors": 4,
          "app": {"kind": "table", "iterations": ITERATIONS, "iteration_time_s": {"4": round(268.69 / ITERATIONS, 3)}}}
w2 = workload("W2", "ReSHAPE paper, workload 2 (Tables 3 and 5): LU and Jacobi at t=0, Master-worker at 560 s, 2D FFT "
              "(static) at 650 s, on 36 processors. App models derived from the paper's Figure 3a and static "
              "times: see generate_workloads.py and derivation.json.",
              [lu(0, 16, 1265.87), jacobi(0, 10, 867.00), mw(560, 6, 355.00), w2_fft])


def label(value, status, source):
    return {"value": value, "status": status, "source": source}


derivation = {
    "schema": "hetperf.derivation/1",
    "generator": "examples/batch/generate_workloads.py",
    "paper": "Sudarsan and Ribbens, ReSHAPE (the ReSHAPE paper, docs/references.md)",
    "numbers": {
        "cluster.processors": label(36, "taken", "section 4.2.1: 'The total number of processors available is 36'"),
        "iterations_per_job": label(ITERATIONS, "taken", "section 4: 'a single job consisted of ten iterations'"),
        "fig3a.lu12000.iteration_time_s": label(dict(zip(map(str, FIG3A_P), FIG3A_T)), "taken", "Figure 3a"),
        "fig3a.lu12000.redistribution_s": label({f"{a}->{b}": t for a, b, t in FIG3A_REDIST}, "taken", "Figure 3a"),
        "lu21000.sweet_spot": label(LU_SWEET, "taken", "section 4.1.1"),
        "lu12000.sweet_spot": label(FIG3A_SWEET, "taken", "Figure 3a (16 is slower than 12)"),
        "redistribution.latency_s": label(round(LATENCY_S, 4), "derived",
                                          "least squares of Figure 3a's five expansions, t = l + s/b"),
        "redistribution.bandwidth_bytes_per_s": label(round(BANDWIDTH, 1), "derived", "same fit"),
        "redistribution.r2": label(round(R2, 4), "derived", "same fit"),
        "redistribution.fitted_s": label({f"{a}->{b}": round(t, 3) for (a, b, _), t in zip(FIG3A_REDIST, REDIST_FITTED)},
                                         "derived", "the fit at Figure 3a's expansions"),
        "data_bytes": label({"LU": 21000 * 21000 * 8, "MM": 3 * 14000 * 14000 * 8, "Jacobi": 8000 * 8000 * 8,
                             "2D FFT": 8192 * 8192 * 16, "Master-worker": 0},
                            "derived", "Table 3 problem sizes; 8-byte doubles (FFT 16-byte complex); MM holds A, B "
                            "and C (assumed); Jacobi its matrix; Master-worker has no data (section 4.1.2)"),
        "lu.curve": label("Figure 3a shape, processor axis x 30/12, scaled to T(p0)", "derived", "section 4.1.1 + Figure 3a"),
        "mm_jacobi_fft.curve": label("T(p) = T(p0) p0 / p", "assumed", "no curve or sweet spot in the paper"),
        "master_worker.curve": label("T(p) = T(p0) (p0 - 1) / (p - 1)", "derived",
                                     "Table 1: fixed-time work units shared by the workers"),
        "w1.submit_s": label({"LU": 0, "MM": 0, "Master-worker": 450, "Jacobi": 465, "2D FFT": 465}, "taken", "section 4.2.1"),
        "w2.submit_s.LU_Jacobi": label(0, "assumed", "not stated; LU 'expanded' from the start (section 4.2.2)"),
        "w2.submit_s": label({"Master-worker": 560, "2D FFT": 650}, "taken", "section 4.2.2"),
        "w2.fft_static": label(True, "taken", "section 4.2.2: 'the static scheduled 2D FFT application'"),
        "initial_processors": label({"W1": {"LU": 6, "MM": 8, "Master-worker": 2, "Jacobi": 4, "2D FFT": 4},
                                     "W2": {"LU": 16, "Jacobi": 10, "Master-worker": 6, "2D FFT": 4}},
                                    "taken", "Tables 4 and 5"),
        "static_turnaround_s": label({"W1": {"LU": 4482.60, "MM": 3661.20, "Master-worker": 147.47, "Jacobi": 3266.40,
                                             "2D FFT": 840.00},
                                      "W2": {"LU": 1265.87, "Jacobi": 867.00, "Master-worker": 355.00, "2D FFT": 268.69}},
                                     "taken", "Tables 4 and 5, static column (anchors T(p0) = turnaround / 10)"),
        "processor_counts": label({"LU": LU_COUNTS, "MM": MM_COUNTS, "Jacobi": JACOBI_COUNTS, "2D FFT": FFT_COUNTS,
                                   "Master-worker": MW_COUNTS}, "taken",
                                  "Table 2 (up to 36 processors; Master-worker's 2 from Table 4)"),
        "w1.iteration_time_s": label({j["name"]: j["app"]["iteration_time_s"] for j in w1["jobs"]}, "derived", "curves above"),
        "w2.iteration_time_s": label({j["name"]: j["app"]["iteration_time_s"] for j in w2["jobs"]}, "derived", "curves above"),
    },
}

for name, doc in (("w1.json", w1), ("w2.json", w2), ("derivation.json", derivation)):
    with open(os.path.join(sys.argv[1] if len(sys.argv) > 1 else HERE, name), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
