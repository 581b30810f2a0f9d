#!/usr/bin/env bash
# examples/batch's W1/W2 workloads and derivation.json are what generate_workloads.py makes from the
# paper's figures: regenerated into a temporary directory, they equal the committed files byte for byte.
set -euo pipefail
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$src/examples/batch/generate_workloads.py" "$work"
for f in w1.json w2.json derivation.json; do
  cmp "$work/$f" "$src/examples/batch/$f" || { echo "FAIL: examples/batch/$f differs from what generate_workloads.py makes"; exit 1; }
done
echo "batch_examples_generated: ok"
