#!/usr/bin/env python3
"""Writes w1.json and w2.json: the structure of the ReSHAPE seed's workloads W1 and W2 (seed 002
Tables 3-5: the jobs, their arrival times and initial allocations) as hetperf workloads.

The seed does not publish every application's iteration time at every processor count, so each app
model here is synthetic: T(p) = s/p + c*p (perfect division of the work plus a per-processor
communication cost), anchored so that
  * T(p0) at the initial allocation p0 is the seed's static turnaround / 10 iterations
    (Tables 4 and 5: no job waits under static scheduling in these workloads), and
  * the minimum of T (the sweet spot) is at p* (LU 21000: 30 processors in W1 (section 4.1.1),
    20 in W2 (section 4.2.2); the others are our choice, listed below),
i.e. c = T0 / (p*^2 / p0 + p0) and s = c * p*^2. The processor configurations are those of Table 2.
Redistributed data: the global matrices in 8-byte doubles (FFT: 16-byte complex); Master-worker has none.
Run: python3 generate_workloads.py  (deterministic; rewrites both files)."""
import json

def table(t0, p0, p_star, counts):
    c = t0 / (p_star ** 2 / p0 + p0)
    s = c * p_star ** 2
    return {str(p): round(s / p + c * p, 3) for p in counts}

def job(name, submit, p0, t0, p_star, counts, resize):
    return {"name": name, "type": "malleable", "submit_s": submit, "processors": p0,
            "app": {"kind": "table", "iterations": 10, "iteration_time_s": table(t0, p0, p_star, counts)},
            "resize": resize}

LU_COUNTS = [4, 6, 9, 12, 16, 20, 25, 30, 36]           # 21000: 2x2, 2x3, 3x3, ... 6x6
MM_COUNTS = [4, 8, 16, 20, 25, 35]                      # 14000: 2x2, 2x4, 4x4, 4x5, 5x5, 5x7
JACOBI_COUNTS = [4, 8, 10, 16, 20, 32]                  # 8000
FFT_COUNTS = [2, 4, 8, 16, 32]                          # 8192
MW_COUNTS = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22]    # Master-worker (W1 starts it on 2)

def lu(submit, p0, t0, p_star):
    return job("LU", submit, p0, t0, p_star, LU_COUNTS,
               {"topology": "nearly_square", "problem_size": 21000, "data_bytes": 21000 * 21000 * 8})

def mm(submit, p0, t0, p_star):
    return job("MM", submit, p0, t0, p_star, MM_COUNTS,
               {"topology": "nearly_square", "problem_size": 14000, "data_bytes": 3 * 14000 * 14000 * 8})

def mw(submit, p0, t0, p_star):
    return job("Master-worker", submit, p0, t0, p_star, MW_COUNTS, {"data_bytes": 0})

def jacobi(submit, p0, t0, p_star):
    return job("Jacobi", submit, p0, t0, p_star, JACOBI_COUNTS, {"data_bytes": 8000 * 8000 * 8})

def fft(submit, p0, t0, p_star):
    return job("2D FFT", submit, p0, t0, p_star, FFT_COUNTS,
               {"topology": "divides", "problem_size": 8192, "data_bytes": 8192 * 8192 * 16})

def workload(name, description, jobs):
    return {"schema": "hetperf.workload/1", "name": name, "description": description,
            "scheduler": {"policy": "reshape", "processors": 36}, "jobs": jobs}

w1 = workload("W1", "Seed 002 workload 1 (Tables 3-4, Figure 4): LU and MM at t=0, Master-worker at 450 s, "
              "Jacobi and 2D FFT at 465 s, on 36 processors. Synthetic app models, see generate_workloads.py.",
              [lu(0, 6, 448.260, 30), mm(0, 8, 366.120, 25), mw(450, 2, 14.747, 22),
               jacobi(465, 4, 326.640, 20), fft(465, 4, 84.000, 16)])
# W2's arrival times for LU and Jacobi are not given; section 4.2.2 has LU expanding from t=0 on and
# Master-worker arriving at 560 s and 2D FFT at 650 s.
w2 = workload("W2", "Seed 002 workload 2 (Tables 3 and 5, Figure 5): LU and Jacobi at t=0, Master-worker at "
              "560 s, 2D FFT at 650 s, on 36 processors. Synthetic app models, see generate_workloads.py.",
              [lu(0, 16, 126.587, 20), jacobi(0, 10, 86.700, 16), mw(560, 6, 35.500, 22),
               fft(650, 4, 26.869, 16)])
for name, w in (("w1.json", w1), ("w2.json", w2)):
    with open(name, "w") as f:
        json.dump(w, f, indent=2)
        f.write("\n")
