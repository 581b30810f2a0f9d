import json, statistics as st, re, collections, sys
v=json.load(open(sys.argv[1]))
cells=collections.defaultdict(lambda: ([],[]))
for r in v['runs']:
    if r['group']!='lu': continue
    m=re.match(r'lu-n(\d+)-r(\d+)-p(\d+)-(\w+)', r['id'])
    key=(m.group(4), int(m.group(3)))
    meas=r['measured_s']
    cells[key][0].append(r['predicted_s']/meas-1)
    cells[key][1].append(r.get('time_sliced_s',0)/meas-1)
print("variant ranks n  default-median  sliced-median  within10 default/sliced")
for k in sorted(cells):
    d,s=cells[k]
    w=lambda xs: sum(abs(x)<=0.1 for x in xs)
    print(k, len(d), f"{100*st.median(d):+.1f}% {100*st.median(s):+.1f}%  {w(d)}/{w(s)}")
