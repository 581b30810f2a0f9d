// The options of `hetperf validate` (validate_options.hpp).
#include <cstdlib>

#include "checks.hpp"
#include "validate_options.hpp"

namespace hetperf::cli {
namespace {

// The bounds of the exit status and the testbed's options.
void add_bounds_and_testbed_options(CLI::App* cmd, validate::ValidateOptions* o) {
  cmd->add_option("--max-bias", o->max_bias, "Exit 1 when the overall bias (median signed error) exceeds this fraction")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--min-coverage", o->min_coverage,
                  "Exit 1 when fewer single runs than this fraction fall inside their predicted 80% interval")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--max-error", o->max_error, "Exit 1 when a run's |error| exceeds this fraction")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--mpiexec", o->mpiexec, "MPI launcher")->capture_default_str();
  cmd->add_option(
         "--replay", o->replay,
         "A recorded validation's directory (validation.json, profile.json, calibration-traces/): run nothing; "
         "fit its calibration traces and predict its measured runs again with this build (and this --samples and "
         "--seed), into --out")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--computer", o->computer, "The profile's computer that is this machine (default: the first)");
  cmd->add_option(
         "--testbed", o->testbed,
         "A testbed spec (hetperf testbed): bring it up, probe and calibrate its computers inside them, run the "
         "matrix across its fastest and slowest computer, take it down (root; docs/testbed.md)")
      ->check(CLI::ExistingFile);
  if (const char* dir = std::getenv("HETPERF_TESTBED_STATE_DIR"); dir && *dir) o->testbed_state_dir = dir;
  cmd->add_option("--testbed-state-dir", o->testbed_state_dir,
                  "State directory of the testbed (as `hetperf testbed --state-dir`; env HETPERF_TESTBED_STATE_DIR)")
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout_s, "Seconds before a real run is given up")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
}

}  // namespace

void add_validate_options(CLI::App* cmd, validate::ValidateOptions* o) {
  cmd->add_flag("--quick", o->quick, "A small matrix of a few minutes (for CI)");
  cmd->add_flag("--page-retouch", o->page_retouch,
                "Apply the cpu probe's re-touched pages (recorded in the profile's fits, not applied by calibrate) "
                "before fitting the traces and predicting");
  cmd->add_option("-p,--profile", o->profile,
                  "Platform profile to predict with (default: probe and calibrate this machine into --out)");
  cmd->add_option("-o,--out", o->out, "Directory for the results, e.g. results/<host>")->required();
  cmd->add_option("--repeat", o->repeat,
                  "Real runs per configuration, in a seeded random order; the median is compared (default: 7)")
      ->check(CLI::Range(1, 100));
  cmd->add_option(
         "--max-repeat", o->max_repeat,
         "Up to this many runs per configuration: after the seeded order, further rounds over the configurations "
         "whose measured median is not yet known to ±--median-precision (its 95% interval), in a seeded random "
         "order with calibration runs of the same apps in the order's proportion (default: --repeat, none)")
      ->check(CLI::Range(0, 1000));
  cmd->add_option(
         "--median-precision", o->median_precision,
         "With --max-repeat: the relative half-width of a measured median's 95% interval that needs no more runs")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--further-budget", o->further_budget_s,
                  "With --max-repeat: seconds the further rounds may take; each round then runs the imprecise "
                  "configurations cheapest first, as many as fit in what is left over the rounds left (default: "
                  "0, no limit)")
      ->check(CLI::Range(0.0, 1e7));
  cmd->add_option("--calibration-repeat", o->calibration_repeat,
                  "Traced runs per calibration configuration (disjoint from the validated ones); 0: none (default: 6; "
                  "3 with --quick or --testbed)")
      ->check(CLI::Range(0, 100));
  cmd->add_option("--samples", o->samples, "Sampled predictions per configuration (its median and 80% interval)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--seed", o->seed, "Seed of the run order, the sampled predictions and the bootstrap")
      ->capture_default_str()
      ->check(seed_number());
  add_bounds_and_testbed_options(cmd, o);
}

}  // namespace hetperf::cli
