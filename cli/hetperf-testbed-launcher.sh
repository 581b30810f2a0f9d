#!/bin/sh
# MPICH hydra's launcher for hetperf testbed computers: hydra calls `launcher HOST WORDS...` as it
# would call rsh; `hetperf testbed launch` runs the words in the computer HOST.
exec "$(dirname "$0")/hetperf" testbed launch "$@"
