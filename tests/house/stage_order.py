#!/usr/bin/env python3
"""The stages' link dependencies follow the pipeline: model -> probes, calibrate -> simulator -> apps ->
validate -> cli. Reads the build's stage-dependencies.txt (written by the top CMakeLists.txt from the
targets' LINK_LIBRARIES) and fails on any dependency that points back up or sideways between stages.
Usage: stage_order.py BUILD_DIR"""
import sys

ORDER = {"model": 0, "probes": 1, "calibrate": 1, "simulator": 2, "apps": 3, "validate": 4, "cli": 5}

path = sys.argv[1] + "/stage-dependencies.txt"
edges, bad = 0, []
with open(path) as f:
    for number, line in enumerate(f, 1):
        fields = line.split()
        if len(fields) != 5 or fields[2] != "->" or fields[0] not in ORDER:
            sys.exit(f"{path}:{number}: expected 'STAGE TARGET -> STAGE TARGET', got {line.strip()!r}")
        stage, target, _, dep_stage, dep = fields
        edges += 1
        if dep_stage in ("-", ".") or dep_stage == stage:
            continue
        if dep_stage not in ORDER:
            bad.append(f"{stage} {target} links {dep}, defined in {dep_stage}, which is not a stage")
        elif ORDER[dep_stage] >= ORDER[stage]:
            bad.append(f"{stage} {target} links {dep} of {dep_stage}, which comes "
                       f"{'beside' if ORDER[dep_stage] == ORDER[stage] else 'after'} it in the pipeline")
if edges == 0:
    sys.exit(f"{path}: no dependencies listed")
for b in bad:
    print("FAIL: " + b)
print(f"stage order: {edges} link dependencies read, {len(bad)} against the pipeline order "
      "(model -> probes, calibrate -> simulator -> apps -> validate -> cli)")
sys.exit(1 if bad else 0)
