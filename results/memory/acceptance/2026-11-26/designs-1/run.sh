#!/bin/bash
# Interleaved comparison of quick memory probe designs; order seeded (python random, seed 17), recorded in order.txt
cd /tmp/cmp
python3 -c "
import random
r=random.Random(17)
runs=[(c,i) for c in 'ABC' for i in range(6)]
r.shuffle(runs)
print('\n'.join(f'{c} {i}' for c,i in runs))" > order.txt
while read c i; do
  case $c in
    A) args="";;
    B) args="--memory-passes 1 --time-cap 2";;
    C) args="--memory-passes 1 --time-cap 2.5";;
  esac
  /usr/bin/time -f "$c $i %e" /work/main/build/bin/hetperf probe --quick --only memory $args --out $c$i.json > $c$i.txt 2>>times.txt
done < order.txt
echo done > done
