#!/usr/bin/env python3
"""Writes OUT/report.md from lu_redistribution.sh's runs (OUT/real/*.json, the real traces, and
OUT/prediction.json): each resize's measured redistribution time
(median of the repeats, and their range) beside the simulated back-end's prediction and the fitted
model t = l + s/b (s = bytes / min(p, q)) of OUT/profile.json. Usage: lu_redistribution_report.py OUT"""
import glob
import json
import os
import statistics
import sys

out = sys.argv[1]
measured = {}  # (name, after_iteration) -> list of times
facts = {}
hosts = set()
for path in sorted(glob.glob(os.path.join(out, "real", "*.json"))):
    t = json.load(open(path))
    name = os.path.basename(path).rsplit("-", 1)[0]
    hosts.add(json.dumps({k: t["run"].get(k) for k in ("host", "cores", "ranks", "oversubscribed", "mpi_library")}))
    for r in t["summary"]["redistributions"]:
        key = (name, r["after_iteration"])
        measured.setdefault(key, []).append(r["time_s"])
        facts[key] = r
predicted = {}
for app in json.load(open(os.path.join(out, "prediction.json")))["apps"]:
    for r in app["summary"].get("redistributions", []):
        predicted[(app["name"], r["after_iteration"])] = r["time_s"]
model = json.load(open(os.path.join(out, "profile.json")))["network"]["redistribution"]
l, b = model["latency_s"], model["bandwidth_bytes_per_s"]
fit = model["fit"]


def pct(h, p):
    return f"{100 * (h - p) / p:+.0f}%"


lines = ["# Real LU redistributions: measured, predicted by the simulated back-end, and the fitted model", "",
         "Made by `examples/batch/lu_redistribution.sh` (see results/scheduling/README.md). Each configuration",
         "runs `mpiexec -n P hetperf-lu --expand K --expand-after-iteration 1 --remove K --after-iteration 3`:",
         "P - K ranks, P after iteration 1 (expansion), P - K after iteration 3 (shrink). Measured: median of",
         f"the repeats (range beside it). Predicted: `hetperf predict` with the calibrated profile of this",
         "machine (results/vm/profile.json). Model: the batch scheduler's t = l + s/b fitted to all measured",
         f"resizes (`hetperf calibrate-redistribution`): l = {l * 1e3:.2f} ms, b = {b / 1e6:.0f} MB/s, "
         f"R² {fit['r2']:.3f}, over the medians of {fit['points']} resizes ({len(fit['samples'])} runs' resizes). Differences are (other - measured) / measured.", "",
         "Hosts: " + "; ".join(sorted(hosts)), "",
         "Load average (/proc/loadavg) before and after the runs: "
         + open(os.path.join(out, "loadavg-before.txt")).read().strip() + " / "
         + open(os.path.join(out, "loadavg-after.txt")).read().strip()
         + " (the machine, 2 cores, was shared with other engineers' builds and tests).", "",
         "| run | resize | bytes moved | measured (ms) | range (ms) | predicted (ms) | diff | model (ms) | diff |",
         "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
pred_diffs, model_diffs = [], []
for key in sorted(measured, key=lambda k: (k[0], k[1])):
    times = measured[key]
    m = statistics.median(times)
    f = facts[key]
    s = f["bytes"] / min(f["from_ranks"], f["to_ranks"])
    modelled = l + s / b
    p = predicted.get(key)
    pred_diffs.append(abs(p - m) / m) if p is not None else None
    model_diffs.append(abs(modelled - m) / m)
    lines.append(f"| {key[0]} | {f['from_ranks']} -> {f['to_ranks']} after {key[1]} | {f['bytes']:,} | {1e3 * m:.1f} | "
                 f"{1e3 * min(times):.1f}-{1e3 * max(times):.1f} | "
                 + (f"{1e3 * p:.1f} | {pct(p, m)}" if p is not None else "- | -")
                 + f" | {1e3 * modelled:.1f} | {pct(modelled, m)} |")
lines += ["", f"Median |difference|: predicted by the simulated back-end {100 * statistics.median(pred_diffs):.0f}%, "
              f"fitted model {100 * statistics.median(model_diffs):.0f}%.", ""]
open(os.path.join(out, "report.md"), "w").write("\n".join(lines))
print(f"wrote {out}/report.md")
