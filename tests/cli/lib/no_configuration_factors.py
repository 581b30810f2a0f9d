#!/usr/bin/env python3
"""Fails when a calibrated profile holds a factor keyed by an application configuration.

Every parameter the prediction reads belongs to a computer (or a pair of computers): nothing may be
keyed by a rank count, a problem size, a variant, a block size or a placement. Usage:
no_configuration_factors.py PROFILE.json. Exit 0 when clean; 1 listing what it found.

What may mention configurations: `diagnostics` (what calibration measured against its models, never
read by a prediction), `provenance`, the fit records under `fits` (how each figure was measured), and
`app_models.calibrated` (the range the models were calibrated over, which only widens the spread
away from it), and the traces' names.
"""
import json
import sys

# Keys that would make a parameter configuration-specific wherever the prediction reads it.
FORBIDDEN = {"ranks", "run_scales", "placements", "ratio", "scales", "variant", "size", "pattern", "n", "r",
             "block", "instances", "steps"}
EXEMPT = {"diagnostics", "provenance", "fits", "fit", "calibrated", "traces", "trace", "warnings"}


def walk(value, path, found):
    if isinstance(value, dict):
        for key, child in value.items():
            if key in EXEMPT:
                continue
            if key in FORBIDDEN:
                found.append(f"{path}.{key}")
            walk(child, f"{path}.{key}", found)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            walk(child, f"{path}[{i}]", found)


def main():
    profile = json.load(open(sys.argv[1]))
    found = []
    walk(profile, "$", found)
    if found:
        print(f"{sys.argv[1]}: configuration-keyed fields in the prediction's path: " + ", ".join(found))
        return 1
    computers = [c for c in profile.get("computers", []) if "app_models" in c]
    print(f"{sys.argv[1]}: no configuration-keyed factor ({len(computers)} computer(s) with application models)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
