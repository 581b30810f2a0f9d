#!/bin/bash
# Interleaved: N settle (cheap rounds until 16 MB faulted in, cap 2 s), no MSER, sweep everywhere;
# W the same without the cache sweep beyond main memory, t_0 from rounds below main memory. Both record
# the device control (8 O_DIRECT 4 KiB reads of the swap file after each round). Seed 37.
cd /tmp/cmp4
python3 -c "
import random
r=random.Random(37)
runs=[(c,i) for c in 'NW' for i in range(6)]
r.shuffle(runs)
print('\n'.join(f'{c} {i}' for c,i in runs))" > order.txt
while read c i; do
  case $c in
    N) env="HETPERF_SETTLE=16 HETPERF_SETTLE_CAP=2 HETPERF_NOMSER=1";;
    W) env="HETPERF_SETTLE=16 HETPERF_SETTLE_CAP=2 HETPERF_NOMSER=1 HETPERF_NOSWEEP_SWAP=1 HETPERF_T0_BELOW=1";;
  esac
  env $env HETPERF_DEVCTL=1 HETPERF_TRACE=1 /usr/bin/time -f "$c $i %e" /work/main/build/bin/hetperf probe --quick --only memory --out $c$i.json > $c$i.txt 2> $c$i.trace
  tail -1 $c$i.trace >> times.txt
done < order.txt
echo done > done
