import collections,statistics as st,sys
d=collections.OrderedDict()
for l in open(sys.argv[1]):
    if not l.startswith('R '): continue
    _,mb,t,c,f=l.split(); d.setdefault(float(mb),[]).append((float(t)*1e3,float(c)*1e3,float(f)))
for mb,v in d.items():
    ts=[x[0] for x in v]; cs=[x[1] for x in v]
    print(f"{mb:6.1f} n{len(v):4d} t med {st.median(ts):7.3f} [{min(ts):.3f},{max(ts):.3f}]  c med {st.median(cs):7.3f} [{min(cs):.3f},{max(cs):.3f}]")
