// Master/worker trapezium integration, written once against Runtime.
#include "hetperf/apps/integrate.hpp"

#include <cmath>
#include <cstring>
#include <vector>

namespace hetperf::apps {
namespace {
enum IntegrateTag : int { kTagWork = 11, kTagResult = 12 };
double f(double x) { return 2 * std::sin(x) + std::exp(x); }  // UniMPP paper eq. 10
}  // namespace

std::string IntegrateConfig::validate(int ranks) const {
  if (ranks < 2) return "expected at least 2 ranks (a master and a worker), got " + std::to_string(ranks);
  if (!(b > a)) return "--b: expected b > a";
  if (steps == 0) return "--steps: expected a positive number of steps";
  if (message_bytes < 16)
    return "--message-bytes " + std::to_string(message_bytes) + ": expected at least 16 (the interval)";
  return {};
}

double integral_closed_form(double a, double b) { return 2 * (std::cos(a) - std::cos(b)) + std::exp(b) - std::exp(a); }

double trapezium(double a, double b, std::uint64_t steps) {
  const double h = (b - a) / static_cast<double>(steps);
  double sum = (f(a) + f(b)) / 2;
  for (std::uint64_t i = 1; i < steps; ++i) sum += f(a + static_cast<double>(i) * h);
  return sum * h;
}

Task integrate_rank(Runtime& rt, const IntegrateConfig& cfg, IntegrateResult& result) {
  const bool data = rt.holds_data();
  std::vector<char> message(data ? cfg.message_bytes : 0);
  const int workers = rt.size() - 1;
  if (rt.rank() == 0) {
    double start = rt.now();
    const double width = (cfg.b - cfg.a) / workers;
    for (int w = 1; w <= workers; ++w) {
      if (data) {
        double interval[2] = {cfg.a + (w - 1) * width, w == workers ? cfg.b : cfg.a + w * width};
        std::memcpy(message.data(), interval, sizeof interval);
      }
      co_await rt.send(w, kTagWork, data ? message.data() : nullptr, cfg.message_bytes);
    }
    double total = 0;
    for (int w = 1; w <= workers; ++w) {
      co_await rt.recv(w, kTagResult, data ? message.data() : nullptr, cfg.message_bytes);
      if (data) {
        double part;
        std::memcpy(&part, message.data(), sizeof part);
        total += part;
      }
    }
    result.integral = total;
    result.response_s = rt.now() - start;
  } else {
    co_await rt.recv(0, kTagWork, data ? message.data() : nullptr, cfg.message_bytes);
    double interval[2] = {0, 0};
    if (data) std::memcpy(interval, message.data(), sizeof interval);
    double part = 0;
    co_await rt.integrate(interval[0], interval[1], cfg.steps, &part);
    if (cfg.disk_bytes) co_await rt.disk_write(cfg.disk_bytes);
    if (data) std::memcpy(message.data(), &part, sizeof part);
    co_await rt.send(0, kTagResult, data ? message.data() : nullptr, cfg.message_bytes);
  }
}

}  // namespace hetperf::apps
