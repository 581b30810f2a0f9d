#!/bin/bash
# Nine consecutive quick memory probes: the device scale, and the fine grid half a step either side of
# main memory, never on it (no point at 128 MB); the device reference at the 30th percentile.
cd /tmp/val8  # the JSON files and times.txt were copied here afterwards
for i in 1 2 3 4 5 6 7 8 9; do
  /usr/bin/time -f "run$i wall %e s" /work/main/build/bin/hetperf probe --quick --only memory --out run$i.json > run$i.txt 2>>times.txt
done
echo done > done
