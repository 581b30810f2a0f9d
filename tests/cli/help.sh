#!/usr/bin/env bash
# `hetperf --help` and every subcommand's --help describe their options, with defaults.
set -euo pipefail
hetperf=$1
"$hetperf" --help | grep -q "probe"
"$hetperf" --version | grep -q "hetperf "
for sub in probe calibrate predict; do
  out=$("$hetperf" "$sub" --help)
  grep -q -- "--out" <<<"$out" || { echo "$sub --help lacks --out"; exit 1; }
done
"$hetperf" probe --help | grep -q "default"
"$hetperf" predict --help | grep -q "round_robin"
# An unknown subcommand or option is a usage error: exit 2.
set +e
"$hetperf" frobnicate >/dev/null 2>&1; [[ $? -eq 2 ]] || { echo "unknown subcommand did not exit 2"; exit 1; }
# ... also with --help after it, and the message names it (CLI11 alone prints the general help, exit 0).
err=$("$hetperf" frobnicate --help 2>&1 >/dev/null); status=$?
[[ $status -eq 2 && $err == *"unknown command 'frobnicate'"* ]] || { echo "frobnicate --help: exit $status, '$err'"; exit 1; }
"$hetperf" predict --bogus >/dev/null 2>&1; [[ $? -eq 2 ]] || { echo "unknown option did not exit 2"; exit 1; }
echo "help: ok"
