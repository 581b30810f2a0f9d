# The start-up transient at one occupation: the median alpha of consecutive blocks of sampled rounds
# (climbs pooled in order: the first climb's rounds, then the second's), per run.
# usage: python3 transient.py MB BLOCK run1.json run2.json ...
import json, statistics, sys
mb, block = float(sys.argv[1]), int(sys.argv[2])
for f in sys.argv[3:]:
    points = json.load(open(f))['probes']['memory']['points']
    p = min(points, key=lambda p: abs(p['occupied_mb'] - mb))
    s = p['slowdown']['samples']
    blocks = [statistics.median(s[k:k + block]) for k in range(0, len(s) - block + 1, block)]
    print(f"{f}: {p['occupied_mb']:.1f} MB, n {len(s)}, cut {p.get('transient_rounds', 0):.0f}, median {p['slowdown']['median']:.2f}; "
          f"blocks of {block}: " + ' '.join(f'{b:.1f}' for b in blocks))
