# python3 device_scale.py SET...  (run in results/memory/acceptance/2026-11-26)
# The evidence behind the device scale and the grid off the limit (the quick memory probe's acceptance), from the JSON files
# of sets of consecutive quick probes:
#  1. per occupation beyond the limit: the run-to-run spread (CV) of the reference's excess per swap-in
#     e = alpha t_0 / swap-ins, alpha before any device correction, and of e divided by the point's
#     median read time of the swap device d_x;
#  2. triples meeting item 1's bar (triples.py's rule) when each point's excess beyond the limit is
#     scaled to one read time per run, a quantile of the points' median reads (nearest rank), leaving
#     out the point on the limit itself;
#  3. the point on the limit: its alpha against the cgroup's charge beyond the limit there.
import json, sys, glob, math, itertools, collections, statistics as st

def load(s):
    return [json.load(open(f))['probes']['memory'] for f in sorted(glob.glob(s + '/run*.json'))]

def unscaled(p):
    # alpha as measured, before the device scale (device_scale) or the spell correction of older files
    a = p['slowdown']['median']
    return a / p['device_scale'] if 'device_scale' in p else a + p.get('spell_correction', 0)

def beyond(p):
    return 'settle_rounds' in p and p.get('device_read_s')

def cv(v):
    return st.pstdev(v) / st.mean(v)

sets = sys.argv[1:]
runs = {s: load(s) for s in sets}
print('1. excess per swap-in e (us) and e / d_x, run to run, per occupation')
rows = collections.defaultdict(list)
for s in sets:
    for r in runs[s]:
        t0 = r['settings']['alpha_baseline_s']
        for p in r['points']:
            if beyond(p) and p['occupied_mb'] > r['main_memory_mb'] + 1:
                e = unscaled(p) * t0 / p['reference_major_faults']
                rows[round(p['occupied_mb'], 1)].append((e * 1e6, e / p['device_read_s']))
for x, v in sorted(rows.items()):
    print(f'  {x:6.1f} MB: {len(v)} runs, e median {st.median(a for a, _ in v):.0f} us, CV {cv([a for a, _ in v]):.3f}; '
          f'e/d_x median {st.median(b for _, b in v):.2f}, CV {cv([b for _, b in v]):.3f}')

def curves(rs, quantile):
    out = []
    for r in rs:
        reads = sorted(p['device_read_s'] for p in r['points'] if p.get('device_read_s'))
        d = reads[max(math.ceil(quantile * len(reads)), 1) - 1] if quantile is not None else None
        c = {}
        for p in r['points']:
            x = round(p['occupied_mb'], 1)
            if abs(x - r['main_memory_mb']) < 0.01: continue
            a = p['slowdown']['median']
            if beyond(p):
                a = unscaled(p) * (d / p['device_read_s'] if d else 1)
            c[x] = a
        out.append(c)
    return out

def triples(rs, cs):
    ok = 0
    for tri in itertools.combinations(range(len(rs)), 3):
        good = True
        for i in tri:
            for x, a in cs[i].items():
                if x < rs[i]['knee_mb']: continue
                o = [cs[j][x] for j in tri if j != i and x in cs[j]]
                good = good and abs(a / st.median(o) - 1) <= 0.25
        ok += good
    return ok

print('2. triples meeting the bar without the point on the limit, by the reference read time')
for q in [None, 0, 0.1, 0.2, 0.3, 0.5]:
    res = [triples(runs[s], curves(runs[s], q)) for s in sets]
    name = 'no device correction' if q is None else f'quantile {q}'
    print(f'  {name:20s} ' + '  '.join(f'{s.split("/")[-1]} {n}/84' for s, n in zip(sets, res)) + f'  total {sum(res)}/{84 * len(sets)}')

print('3. the point on the limit: alpha (scaled to d = 64 us) against the charge beyond the limit')
pairs = []
for s in sets:
    for r in runs[s]:
        for p in r['points']:
            if abs(p['occupied_mb'] - r['main_memory_mb']) < 0.01 and p.get('charged_mb'):
                pairs.append((p['charged_mb'] - r['main_memory_mb'], unscaled(p) * 64e-6 / p['device_read_s']))
if pairs:
    print(f'  {len(pairs)} runs: charge beyond the limit {min(a for a, _ in pairs):.2f}-{max(a for a, _ in pairs):.2f} MB, '
          f'alpha {min(b for _, b in pairs):.2f}-{max(b for _, b in pairs):.2f}, '
          f'alpha per MB of it {st.median(b / a for a, b in pairs):.2f} (median), correlation {st.correlation(*zip(*pairs)):.2f}')
