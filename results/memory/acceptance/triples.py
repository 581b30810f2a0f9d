# python3 triples.py run*.json: every triple of the runs given, judged as three consecutive runs.
# Triples of runs meeting the quick memory probe's 25% bar by accept.py's rule (points at or above each run's knee,
# each within 25% of the median of the triple's other two runs), plus the other bars.
import json,sys,itertools,statistics as st,collections
runs=[json.load(open(f))['probes']['memory'] for f in sys.argv[1:]]
curves=[{round(p['occupied_mb'],1):p['slowdown']['median'] for p in r['points']} for r in runs]
ok=0;tot=0;fails=collections.Counter();other=0
for tri in itertools.combinations(range(len(runs)),3):
    tot+=1;good=True
    for i in tri:
        r=runs[i];c=curves[i];knee=r.get('knee_mb');L=r['main_memory_mb']
        if knee is None or abs(knee/L-1)>0.05: good=False;other+=1;continue
        if max(a for x,a in c.items() if x<knee)>r['knee_slowdown']: good=False;other+=1
        dur=sum(p.get('duration_s',0) for p in r['points'])
        for x,a in c.items():
            if x<knee: continue
            o=[curves[j][x] for j in tri if j!=i and x in curves[j]]
            if abs(a/st.median(o)-1)>0.25: good=False;fails[x]+=1
    ok+=good
within=sum(1 for i,c in enumerate(curves) for x,a in c.items() if x>=runs[i]['knee_mb'] and abs(a/st.median([d[x] for j,d in enumerate(curves) if j!=i])-1)<=0.25)
allp=sum(1 for i,c in enumerate(curves) for x,a in c.items() if x>=runs[i]['knee_mb'])
print(f'triples meeting the bar {ok}/{tot}; (run, point) above the knee within 25% of the other runs\' median: {within}/{allp}; failing run-points by x in triples: {dict(sorted(fails.items()))}; other bars failed {other}')
