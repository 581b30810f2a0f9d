// LU kernel time models t(r) = Σ c_k r^k by weighted linear least squares.
#include "hetperf/calibrate/kernel_model_fit.hpp"

#include "hetperf/calibrate/polynomial_fit.hpp"
#include "hetperf/model/error.hpp"

namespace hetperf::calibrate {

std::vector<int> kernel_model_powers(const std::string& kernel) {
  if (kernel == "dgemm" || kernel == "dtrsm" || kernel == "dgetrf") return {3, 2, 0};
  HETPERF_CHECK(kernel == "dlaswp", "unknown kernel '" + kernel + "'");
  return {2, 1, 0};
}

KernelModelFitSummary fit_kernel_model(std::span<const double> block, std::span<const double> time_s,
                                       const KernelModelFitOptions& options) {
  for (std::size_t i = 0; i < block.size(); ++i) {
    if (!(block[i] > 0)) {
      throw InputError(options.name + ": point " + std::to_string(i) + ": expected a positive block size, got " +
                       std::to_string(block[i]));
    }
  }
  PolynomialFitOptions o;
  o.name = options.name;
  o.powers = kernel_model_powers(options.kernel);
  for (int p : o.powers) o.parameter_names.push_back(std::string("r").append(std::to_string(p)).append("_s"));
  o.relative_errors = true;  // times span decades across block sizes
  KernelModelFitSummary s;
  s.fit = fit_polynomial(block, time_s, o);
  s.model.kernel = options.kernel;
  s.model.rows = options.rows;
  s.model.powers = o.powers;
  for (const auto& p : s.fit.parameters) s.model.coefficients_s.push_back(p.value);
  return s;
}

}  // namespace hetperf::calibrate
