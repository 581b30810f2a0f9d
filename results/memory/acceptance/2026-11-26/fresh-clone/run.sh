#!/bin/bash
# Item 1's acceptance as a new user runs it: nine consecutive quick memory probes with the build of a
# fresh clone of c54f748 (git clone /work/main /tmp/ciD; CI=true bash .ci/run, exit 0), right after
# that CI run.
cd /tmp/val9  # the JSON files and times.txt were copied here afterwards
for i in 1 2 3 4 5 6 7 8 9; do
  /usr/bin/time -f "run$i wall %e s" /tmp/ciD/build/bin/hetperf probe --quick --only memory --out run$i.json > run$i.txt 2>>times.txt
done
echo done > done
