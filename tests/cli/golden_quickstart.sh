#!/usr/bin/env bash
# The bundled example workload, predicted on a fixed test platform, gives the committed output
# byte for byte (apart from the command line), and two runs are byte-identical.
# After an intended model change: HETPERF_UPDATE_GOLDEN=1 ctest -R golden, then review the diff.
set -euo pipefail
hetperf=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"
golden=tests/golden/quickstart.prediction.json
for run in 1 2; do
  mkdir -p "$work/$run"
  "$hetperf" predict --platform tests/data/two_computers.json --workload examples/workloads/quickstart.json \
    --out "$work/$run/prediction.json" >/dev/null 2>&1
done
# The command line names the output file, so it differs between the runs only by that path.
cmp <(sed "s|$work/1|X|" "$work/1/prediction.json") <(sed "s|$work/2|X|" "$work/2/prediction.json")
grep -v '"command"' "$work/1/prediction.json" >"$work/actual.json"
if [[ ${HETPERF_UPDATE_GOLDEN:-} == 1 ]]; then
  cp "$work/actual.json" "$golden"
  echo "golden: updated $golden"
fi
diff -u "$golden" "$work/actual.json"
echo "golden: ok"
