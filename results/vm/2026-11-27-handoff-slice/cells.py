# The median signed error per cell of a validation.json (LU per variant and rank count, the
# integration, the removal), default and time-sliced, and how many configurations are within ±10%.
# Usage: python3 cells.py DIR/validation.json
import collections, json, re, statistics as st, sys

v = json.load(open(sys.argv[1]))
cells = collections.defaultdict(lambda: ([], []))
for r in v['runs']:
    if r['group'] == 'lu':
        m = re.match(r'lu-n(\d+)-r(\d+)-p(\d+)-(\w+)', r['id'])
        key = f"lu-{m.group(4)}-p{m.group(3)}"
    else:
        key = r['group']
    cells[key][0].append(r['predicted_s'] / r['measured_s'] - 1)
    cells[key][1].append(r.get('time_sliced_s', 0) / r['measured_s'] - 1)
print("cell                      n  default  time-sliced  within ±10% default/time-sliced")
for k in sorted(cells):
    d, s = cells[k]
    within = lambda xs: sum(abs(x) <= 0.1 for x in xs)
    print(f"{k:24s} {len(d):3d}  {100 * st.median(d):+6.1f}%  {100 * st.median(s):+6.1f}%      {within(d)}/{within(s)}")
