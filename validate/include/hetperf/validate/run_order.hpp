// The order of a validation's real runs: seeded, interleaved, and the further rounds of
// --max-repeat over the configurations whose medians are not yet precise.
//
//   std::vector<std::size_t> order = run_order(configurations, 3, seed);  // each index 3 times, shuffled
//   for (std::size_t c : order) run(c);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hetperf/validate/matrix.hpp"

namespace hetperf::validate {

// The order of the real runs: every (configuration, repeat) pair of `configurations` × `repeats`,
// shuffled by a generator seeded with `seed` (Hoefler and Belli: interleave configurations in a random,
// recorded order rather than repeating back to back, so that a slow spell of the machine hits many).
std::vector<std::size_t> run_order(std::size_t configurations, int repeats, std::uint64_t seed);
// The same with `repeats[c]` runs of configuration c (calibration and validated configurations in
// one order); equal repeats give the order above.
std::vector<std::size_t> run_order(const std::vector<int>& repeats, std::uint64_t seed);

// The runs whose measured median is not yet known to ±`precision` (relative): the 95% interval of
// the median from order statistics (hetperf/model/statistics.hpp median_ci95) reaches further than
// that from it, or there are fewer than 3 measurements (no interval to speak of).
std::vector<std::size_t> imprecise_medians(const std::vector<ValidationRun>& runs, double precision);

// The configurations of `wide` one further round can afford within `budget_s` seconds: taken
// cheapest first (`seconds_per_run`, indexed as the runs; ties by index) while their sum fits, and
// returned in `wide`'s order. A time budget thus buys the most runs where they cost least: the short
// configurations, whose medians the machine's spells make the least precise (results/vm).
std::vector<std::size_t> affordable(const std::vector<std::size_t>& wide, const std::vector<double>& seconds_per_run,
                                    double budget_s);

// One further round of validate --max-repeat: the validated configurations `wide` (indices into
// `validated_apps`, each configuration's app) and, so that the calibration keeps sampling the
// machine's states alongside, calibration runs of the same apps in the seeded order's proportion:
// for an app with V validated and C calibration configurations, run `repeat` and
// `calibration_repeat` times in the order, each further validated run brings C·calibration_repeat /
// (V·repeat) calibration runs, drawn without replacement from that app's calibration
// configurations (`calibration_apps`; a fraction by a seeded draw). All in one seeded random order,
// numbered as run_order's: below validated_apps.size() a validated configuration, from it on
// validated_apps.size() + a calibration configuration.
std::vector<std::size_t> further_round(const std::vector<std::string>& validated_apps,
                                       const std::vector<std::size_t>& wide,
                                       const std::vector<std::string>& calibration_apps, int repeat,
                                       int calibration_repeat, std::uint64_t seed);

}  // namespace hetperf::validate
