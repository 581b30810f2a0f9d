#!/usr/bin/env bash
# Draws memory-curve.png (docs/probes.md) from measurement.json and profile.json of this folder:
# each point's median alpha with its 95% order-statistic interval, the flat line below the knee, the
# measured table the profile keeps beyond it, and the exponential fit it replaced (for comparison).
set -euo pipefail
cd "$(dirname "$0")"
python3 - <<'PY'
import json, math
m = json.load(open("measurement.json"))["probes"]["memory"]
f = json.load(open("profile.json"))["computers"][0]["fits"]["memory_slowdown"]
def median_ci95(v):  # statistics.hpp median_ci95: binomial order statistics
    v = sorted(v); n = len(v); j = 0; cdf = 0.0
    for k in range(n + 1):
        if cdf > 0.025: break
        j = k; cdf += math.comb(n, k) / 2 ** n
    return (v[0], v[-1]) if j < 1 else (v[j - 1], v[n - j])
with open("curve.dat", "w") as out:
    out.write("# occupied_mb median_alpha ci95_low ci95_high reference_major_faults\n")
    for p in m["points"]:
        lo, hi = median_ci95(p["slowdown"]["samples"])
        out.write(f'{p["occupied_mb"]:.2f} {p["slowdown"]["median"]:.4f} {lo:.4f} {hi:.4f} {p.get("reference_major_faults", 0)}\n')
a = f["main"]["parameters"]["a_per_mb"]["value"]; b = f["main"]["parameters"]["b"]["value"]
c = f["swap"]["parameters"]["c"]["value"]; d = f["swap"]["parameters"]["d_per_mb"]["value"]
with open("fit.gp", "w") as out:
    out.write(f'knee = {f["knee_mb"]}\nlimit = {m["main_memory_mb"]}\na = {a}\nb = {b}\nc = {c}\nd = {d}\n')
    out.write(f'r2main = {f["main"]["r2"]}\nr2swap = {f["swap"]["r2"]}\n')
    slope = f["main"]["parameters"]["a_per_mb"]["ci95"]
    out.write(f'mainflat = {1 if f.get("main_flat") else 0}\nslopelo = {slope[0]}\nslopehi = {slope[1]}\n')
    out.write(f'lofp = {f.get("main_lack_of_fit", {}).get("p", -1)}\n')
with open("table.dat", "w") as out:  # what SlowdownFunction::alpha interpolates beyond the knee
    out.write("# occupied_mb alpha\n")
    out.write(f'{f["knee_mb"]:.2f} {max(0.0, a * f["knee_mb"] + b):.4f}\n')
    for p in m["points"]:
        if p["occupied_mb"] > f["knee_mb"]:
            out.write(f'{p["occupied_mb"]:.2f} {p["slowdown"]["median"]:.4f}\n')
PY
gnuplot <<'GP'
load "fit.gp"
set terminal pngcairo size 900,560 font ",11"
set output "memory-curve.png"
set title sprintf("Memory slowdown, quick probe of this VM (128 MB cgroup, 128 MB swap file); knee %.1f MB", knee)
set xlabel "occupied memory (MB): reference task + load processes"
set ylabel "slowdown α (median, 95% interval)"
set key top left
set grid
set arrow from limit, graph 0 to limit, graph 1 nohead dt 3 lc rgb "gray40"
set label "cgroup limit" at limit, graph 0.5 right offset -0.5,0 tc rgb "gray40"
set xrange [0:*]
plot "curve.dat" using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lc rgb "black" title "measured points", \
     "table.dat" using 1:2 with lines lw 2 lc rgb "dark-green" title "table beyond the knee (interpolated by the simulator)", \
     [0:knee] a*x + b with lines lw 2 lc rgb "blue" title (mainflat ? sprintf("flat line below the knee (slope interval contains 0, R² %.2f)", r2main) : sprintf("line below the knee (slope %.4f..%.4f per MB, R² %.2f, lack-of-fit p %.2f)", slopelo, slopehi, r2main, lofp)), \
     [knee:*] c*exp(d*x) with lines dt 2 lc rgb "red" title sprintf("exponential fit, R² %.2f: replaced by the table", r2swap)
GP
echo "wrote $(pwd)/memory-curve.png"
