#!/bin/bash
# Nine consecutive quick memory probes: the device scale (each point's excess beyond main memory
# scaled to the run's 20th-percentile read of the swap device), as the acceptance runs them.
cd /tmp/val6  # the JSON files and times.txt were copied here afterwards
for i in 1 2 3 4 5 6 7 8 9; do
  /usr/bin/time -f "run$i wall %e s" /work/main/build/bin/hetperf probe --quick --only memory --out run$i.json > run$i.txt 2>>times.txt
done
echo done > done
