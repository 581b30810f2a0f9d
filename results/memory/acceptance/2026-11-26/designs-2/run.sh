#!/bin/bash
# Interleaved comparison of quick memory probe designs; order seeded (python random, seed 29), recorded in order.txt
cd /tmp/cmp2
python3 -c "
import random
r=random.Random(29)
runs=[(c,i) for c in 'ABDE' for i in range(6)]
r.shuffle(runs)
print('\n'.join(f'{c} {i}' for c,i in runs))" > order.txt
while read c i; do
  case $c in
    A) args="--memory-sweeps 1";;
    B) args="--memory-passes 1 --time-cap 2 --memory-sweeps 1";;
    D) args="--memory-passes 1 --time-cap 2 --memory-sweeps 2";;
    E) args="--memory-passes 1 --time-cap 2.5 --memory-sweeps 2";;
  esac
  /usr/bin/time -f "$c $i %e" /work/main/build/bin/hetperf probe --quick --only memory $args --out $c$i.json > $c$i.txt 2>>times.txt
done < order.txt
echo done > done
