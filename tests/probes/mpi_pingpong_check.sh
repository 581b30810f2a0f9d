#!/usr/bin/env bash
# Runs hetperf-pingpong under `mpiexec -n 2` with small settings and checks its JSON: one point per
# requested size, positive one-way times, the LogGP block, the busy sends. Args: $1 = hetperf-pingpong binary.
set -euo pipefail
# Through a file: with every sample the JSON can exceed what one argument may hold (128 KiB).
out=$(mktemp)
trap 'rm -f "$out"' EXIT
mpiexec -n 2 "$1" --sizes 0,1024,65536 --min-samples 5 --time-cap 0.5 --loggp 65536 </dev/null >"$out"
python3 - "$out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
sizes = [p["size_bytes"] for p in j["pingpong"]]
assert sizes == [0, 1024, 65536], sizes
for p in j["pingpong"]:
    assert p["one_way_s"]["mean"] > 0 and p["one_way_s"]["n"] >= 5, p
# Medians: a preempted sample (a 4 ms time slice on a busy machine) moves a mean, not a median.
assert j["pingpong"][2]["one_way_s"]["median"] > j["pingpong"][0]["one_way_s"]["median"], \
    (j["pingpong"][2]["one_way_s"]["median"], j["pingpong"][0]["one_way_s"]["median"])
g = j["loggp"]
for k in ("send_overhead_s", "receive_overhead_s", "gap_s"):
    assert g[k]["mean"] >= 0, (k, g[k])
assert g["latency_s"] >= 0 and g["large_size_bytes"] == 65536
assert "MPICH" in j["mpi_library"] or j["mpi_library"], j["mpi_library"]
print("ok:", sizes, "o_s", g["send_overhead_s"]["mean"], "L", g["latency_s"])
PY
# Over TCP alone (the testbed's UCX_TLS) the ranks leave without MPI_Finalize, which hung there, also
# on one host: the run still ends with its status and its whole JSON.
UCX_TLS=tcp,self mpiexec -n 2 "$1" --sizes 0,1024 --min-samples 3 --time-cap 0.5 </dev/null >"$out"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); assert [p["size_bytes"] for p in j["pingpong"]] == [0, 1024], j' "$out"
echo "ok: over TCP alone"
# Busy sends (the eager limit): one per size from 1 KiB up to the first that waited, in ascending order,
# each receiver busy at least 1 ms; between the last eager size and the first that waited, the
# bisection leaves at most 1/16 of the eager one or 64 bytes (where the protocol changes depends on the
# MPI's transport, so no size is asserted).
mpiexec -n 2 "$1" --sizes 0,32,1024,1048576 --min-samples 3 --time-cap 0.5 --busy-sends 1024 </dev/null >"$out"
python3 - "$out" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["busy_sends"]
sizes = [x["size_bytes"] for x in b]
assert sizes == sorted(set(sizes)) and sizes[0] == 1024 and sizes[-1] in (1024, 1048576), sizes
assert all(x["receiver_busy_s"] >= 1e-3 and x["send_s"]["n"] >= 1 for x in b), b
eager = [x["send_s"]["median"] < 0.5 * x["receiver_busy_s"] for x in b]
if False in eager:
    k = eager.index(False)
    gap = sizes[k] - sizes[k - 1] if k > 0 else None
    assert k > 0 and all(eager[:k]) and gap <= max(64, sizes[k - 1] // 16), (sizes, eager)
    assert not any(eager[k:]) and sizes[-1] in (1024, 1048576), (sizes, eager)
else:
    assert sizes[-1] == 1048576, sizes
print("ok: busy sends", list(zip(sizes, eager)))
PY
# The fan-out (the hand-off probe) on three ranks: rank 0 sends to the two others, round after round.
# Three ranks oversubscribe a 2-core machine: a round can take tens of ms, and the time cap ends the
# sampling before --min-samples on a loaded one.
mpiexec -n 3 "$1" --fanout 65536 --min-samples 3 --time-cap 2 </dev/null >"$out"
python3 - "$out" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["fanout"]
assert f["ranks"] == 3 and f["bytes"] == 65536 and f["rounds_per_sample"] >= 10, f
assert f["period_s"]["mean"] > 0 and f["period_s"]["n"] >= 1, f["period_s"]
print("ok: fan-out period", f["period_s"]["mean"])
PY
# A fan-out needs a peer: one rank is refused with exit 2.
status=0
mpiexec -n 1 "$1" --fanout 1024 </dev/null >/dev/null 2>&1 || status=$?
[[ $status == 2 ]] || { echo "one-rank fan-out: exit $status, expected 2"; exit 1; }
