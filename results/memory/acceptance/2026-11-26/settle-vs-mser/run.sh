#!/bin/bash
# Interleaved: B current quick design; N settle (cheap rounds until 64 MB faulted in, cap 2 s) and no MSER. Seed 31.
cd /tmp/cmp3
python3 -c "
import random
r=random.Random(31)
runs=[(c,i) for c in 'BN' for i in range(5)]
r.shuffle(runs)
print('\n'.join(f'{c} {i}' for c,i in runs))" > order.txt
while read c i; do
  case $c in
    B) env="";;
    N) env="HETPERF_SETTLE=64 HETPERF_SETTLE_CAP=2 HETPERF_NOMSER=1";;
  esac
  env $env HETPERF_TRACE=1 /usr/bin/time -f "$c $i %e" /work/main/build/bin/hetperf probe --quick --only memory --out $c$i.json > $c$i.txt 2> $c$i.trace
  tail -1 $c$i.trace >> times.txt
done < order.txt
echo done > done
