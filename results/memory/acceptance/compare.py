# Designs of the quick memory probe compared over interleaved runs (against its 25% bar):
#   python3 compare.py DIR [LONG.json]
# DIR holds times.txt (lines "CONFIG INDEX WALL_S" in run order, as run.sh writes them) and
# CONFIG INDEX.json per run. Per design: wall time (median [min, max]), knee, the largest alpha below
# the knee, and per point beyond the limit the median alpha over the runs and the largest deviation
# of one run from the median of the others (leave-one-out); how many (run, point) pairs lie within
# 25% of the other runs' median; and of every three runs, how many meet the issue's bar at every point.
# LONG.json: a run whose points were visited long (long-visit/), printed beside the medians.
import itertools, json, statistics as st, sys
d = sys.argv[1]
long = {}
if len(sys.argv) > 2:
    long = {round(p['occupied_mb'], 1): p['slowdown']['median'] for p in json.load(open(sys.argv[2]))['probes']['memory']['points']}
designs = {}
for line in open(f'{d}/times.txt'):
    f = line.split()
    if len(f) == 3: designs.setdefault(f[0], {})[int(f[1])] = float(f[2])
for c, runs in sorted(designs.items()):
    curves, knees, below = {}, [], []
    for i in runs:
        m = json.load(open(f'{d}/{c}{i}.json'))['probes']['memory']
        curves[i] = {round(p['occupied_mb'], 1): p['slowdown']['median'] for p in m['points']}
        knees.append(m['knee_mb'] / m['main_memory_mb'] - 1)
        below.append(max(a for x, a in curves[i].items() if x < m['knee_mb']))
    xs = sorted(x for x in curves[min(curves)] if x >= m['main_memory_mb'] - 0.1)
    t = sorted(runs.values())
    print(f"design {c}: {len(runs)} runs, wall {st.median(t):.1f} s [{t[0]:.1f}, {t[-1]:.1f}]; knee {min(knees):+.1%}..{max(knees):+.1%}; "
          f"below the knee alpha at most {max(below):.3f}")
    inside = n = 0
    for x in xs:
        v = [curves[i][x] for i in sorted(curves)]
        dev = [a / st.median(v[:k] + v[k + 1:]) - 1 for k, a in enumerate(v)]
        inside += sum(abs(e) <= 0.25 for e in dev); n += len(dev)
        ref = f", long visit {long[x]:.2f}" if x in long else ""
        print(f"    {x:6.1f} MB: median {st.median(v):6.2f} [{min(v):.2f}, {max(v):.2f}], largest deviation {max(dev, key=abs):+.0%}{ref}")
    ok = tot = 0
    for tri in itertools.combinations(sorted(curves), 3):
        tot += 1
        ok += all(abs(curves[i][x] / st.median([curves[j][x] for j in tri if j != i]) - 1) <= 0.25 for x in xs for i in tri)
    print(f"    within 25% of the other runs' median: {inside}/{n}; triples meeting the bar at every point: {ok}/{tot}")
