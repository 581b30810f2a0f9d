# Acceptance figures of the quick memory probe (its 25% bar) for consecutive `hetperf probe --quick --only memory` runs.
import json, sys, statistics
def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i]); r = [0]*len(v)
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j+1]] == v[order[i]]: j += 1
        for k in range(i, j+1): r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r
def spearman(x, y):
    rx, ry = ranks(x), ranks(y); mx, my = statistics.mean(rx), statistics.mean(ry)
    num = sum((a-mx)*(b-my) for a, b in zip(rx, ry))
    return num / (sum((a-mx)**2 for a in rx) * sum((b-my)**2 for b in ry)) ** 0.5
runs = [json.load(open(f))['probes']['memory'] for f in sys.argv[1:]]
curves = [{round(p['occupied_mb'], 1): p['slowdown']['median'] for p in r['points']} for r in runs]
for f, r, c in zip(sys.argv[1:], runs, curves):
    limit = r['main_memory_mb']; knee = r.get('knee_mb'); thr = r['knee_slowdown']
    below = [a for x, a in c.items() if knee is None or x < knee]
    above = [(x, a) for x, a in c.items() if knee is not None and x >= knee]
    rho = spearman([x for x, _ in above], [a for _, a in above]) if len(above) > 2 else float('nan')
    devs = []
    for x, a in above:
        others = [o[x] for o in curves if o is not c and x in o]
        if others:
            med = statistics.median(others); devs.append((a / med - 1, x))
    worst = max(devs, key=lambda d: abs(d[0])) if devs else (float('nan'), None)
    dur = sum(p.get('duration_s', 0) for p in r['points'])
    imprecise = sum(1 for p in r['points'] if not p['slowdown']['precise'])
    print(f"{f}: knee {knee:.1f} MB ({100*(knee/limit-1):+.1f}% of {limit:.0f}); below knee max alpha {max(below):.3f} "
          f"(threshold {thr}); above: {len(above)} points, Spearman rho {rho:.3f}; worst deviation from the other runs' "
          f"median {100*worst[0]:+.1f}% at {worst[1]} MB; points within 25%: {sum(1 for d in devs if abs(d[0]) <= 0.25)}/{len(devs)}; "
          f"points' time {dur:.1f} s; imprecise points {imprecise}")
