# Per point beyond the knee: each run's median alpha and its deviation from the median of the other
# runs (accept.py's figure), as a table: python3 deviations.py run1.json run2.json run3.json
import json,sys,statistics
runs=[json.load(open(f))['probes']['memory'] for f in sys.argv[1:]]
curves=[{round(p['occupied_mb'],1):p['slowdown']['median'] for p in r['points']} for r in runs]
xs=[x for x in curves[0] if x>=126]
for x in xs:
    row=[]
    for c in curves:
        others=[o[x] for o in curves if o is not c and x in o]
        row.append('%7.2f(%+4.0f%%)'%(c[x],100*(c[x]/statistics.median(others)-1)))
    print('%6.1f'%x,' '.join(row))
