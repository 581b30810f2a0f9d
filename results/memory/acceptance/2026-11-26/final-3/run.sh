#!/bin/bash
# Nine consecutive quick memory probes of the final design (settling rounds, no sweep beyond main
# memory, device control with the spell correction), as the acceptance runs them.
cd /tmp/val5
for i in 1 2 3 4 5 6 7 8 9; do
  /usr/bin/time -f "run$i wall %e s" /work/main/build/bin/hetperf probe --quick --only memory --out run$i.json > run$i.txt 2>>times.txt
done
echo done > done
