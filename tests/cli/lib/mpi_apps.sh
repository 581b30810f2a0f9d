# Shared by the tests that run the real applications under mpiexec (sourced, not a test itself):
# a scratch directory removed on exit, the skip when there is no mpiexec, fail/run helpers, and
# expect_usage_error, and write_kernel_profile, a hand-written profile with the LU's kernel models for the simulated runs.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
command -v mpiexec >/dev/null || { echo "skipped: mpiexec not found"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
run() { timeout 120 mpiexec "$@"; }
# A malformed option ends every rank with exit code 2 and one error line, from rank 0 (never a hang).
expect_usage_error() {
  local msg rc
  msg=$(run "$@" 2>&1 >/dev/null); rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc (expected 2) for: $* -- $msg"
  [[ $(grep -c "error:" <<<"$msg") -eq 1 ]] || fail "expected one error line from rank 0 for: $* -- $msg"
}

write_kernel_profile() {
  cat >"$1" <<'JSON'
{"schema": "hetperf.profile/1", "computers": [{"name": "here", "cores": 2, "mips": 1000, "main_memory_mb": 4096,
  "disk_read_bytes_per_s": 1e8, "disk_write_bytes_per_s": 1e8, "overhead_latency_s": 1e-6,
  "kernels": [{"kernel": "dgemm", "powers": [3], "coefficients_s": [2e-10]},
              {"kernel": "dtrsm", "powers": [3], "coefficients_s": [1e-10]},
              {"kernel": "dgetrf", "powers": [3], "coefficients_s": [1e-10]},
              {"kernel": "dlaswp", "powers": [2], "coefficients_s": [1e-9]}],
  "integration_step_s": 2e-8}],
 "network": {"latency_s": 1e-6, "bandwidth_bytes_per_s": 2e9}}
JSON
}
