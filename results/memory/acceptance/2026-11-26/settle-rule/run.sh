#!/bin/bash
# Interleaved comparison: B = e36dc2c (one climb, 2 s a point), S = the same with the settling rule
# (halves_differ); binaries copied to /tmp/hetperf-B and /tmp/hetperf-S; order seeded (python random, seed 41).
cd /tmp/cmp3
python3 -c "
import random
r=random.Random(41)
runs=[(c,i) for c in 'BS' for i in range(8)]
r.shuffle(runs)
print('\n'.join(f'{c} {i}' for c,i in runs))" > order.txt
while read c i; do
  /usr/bin/time -f "$c $i %e" /tmp/hetperf-$c probe --quick --only memory --out $c$i.json > $c$i.txt 2>>times.txt
done < order.txt
echo done > done
