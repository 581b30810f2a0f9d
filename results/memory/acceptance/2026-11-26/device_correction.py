# Triples of runs meeting the quick memory probe's 25% bar at every point from 128 MB, with alpha as
# measured and with the device correction recomputed from the round traces (gamma = 1, one-sided,
# against the run's median read time): python3 device_correction.py sweep-and-device/N sweep-and-device/W
# (the prefix of NAME.json + NAME.trace pairs; trace lines "R occupation t c swap_ins clock read_us").
import json,sys,statistics as st,itertools,collections
def load(stem):
    m=json.load(open(stem+'.json'))['probes']['memory']; k=m['settings']['control_ratio']; t0=m['settings']['alpha_baseline_s']
    pts={round(p['occupied_mb'],1):p for p in m['points']}
    rows=[l.split() for l in open(stem+'.trace') if l[0]=='R']
    alld=[float(r[6]) for r in rows if float(r[6])>0]; D=st.median(alld)
    by=collections.defaultdict(list)
    for r in rows: by[round(float(r[1]),1)].append(r)
    raw={};cor={};dx={}
    for x,p in pts.items():
        if x<128: continue
        n=p['slowdown']['n']; rs=by[x][-n:]
        Dx=st.median(float(r[6]) for r in rs); dx[x]=Dx
        raw[x]=p['slowdown']['median']
        cor[x]=st.median((float(r[2])-k*float(r[3])-float(r[4])*max(0,Dx-D)*1e-6)/t0 for r in rs)
    return raw,cor,dx,D
def triples(curves):
    xs=sorted(curves[0]); ok=tot=0; fails=collections.Counter()
    for tri in itertools.combinations(range(len(curves)),3):
        tot+=1; good=True
        for i in tri:
            for x in xs:
                o=[curves[j][x] for j in tri if j!=i and x in curves[j]]
                if x in curves[i] and abs(curves[i][x]/st.median(o)-1)>0.25: good=False; fails[x]+=1
        ok+=good
    return ok,tot,dict(sorted(fails.items()))
for d in sys.argv[1:]:
    stems=sorted(s[:-5] for s in __import__('glob').glob(d+'*.json'))
    L=[load(s) for s in stems]
    for name,idx in (('raw',0),('device-corrected',1)):
        cs=[l[idx] for l in L]; ok,tot,f=triples(cs)
        print(d,name,'triples %d/%d'%(ok,tot),'fails',f)
        for x in sorted(cs[0]):
            v=[c[x] for c in cs if x in c]; print('   %6.1f '%x+' '.join('%6.2f'%a for a in v)+'  cv %4.1f%%'%(100*st.pstdev(v)/st.mean(v)))
    print(d,'device D per run',' '.join('%.0f'%l[3] for l in L))
    for x in sorted(L[0][2]): print('   dev %6.1f '%x+' '.join('%5.0f'%l[2][x] for l in L if x in l[2]))
