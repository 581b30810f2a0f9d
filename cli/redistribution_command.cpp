// `hetperf calibrate-redistribution`: real LU runs that resized (hetperf-lu --expand/--remove traces)
// in, the profile with its network.redistribution model out: t = l + s/b fitted to the measured
// redistributions, which the batch scheduler then uses to price resizes (docs/scheduling.md).
#include <iostream>

#include "commands.hpp"
#include "hetperf/apps/lu.hpp"
#include "hetperf/apps/trace_view.hpp"
#include "hetperf/calibrate/redistribution_fit.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/profile.hpp"

namespace hetperf::cli {
namespace {

struct RedistributionArgs {
  std::string platform;
  std::string out;
  std::vector<std::string> traces;
};

// The resize settings of a traced LU run, from the trace's config (as hetperf-lu records it).
apps::LuConfig lu_config(const hetperf::TraceFile& t) {
  if (t.app != "lu") throw InputError(t.file + ": $.app: expected \"lu\" (a resized block LU), got \"" + t.app + "\"");
  apps::LuConfig c;
  const auto& j = t.config;
  c.n = j.value("n", 0), c.r = j.value("r", 0);
  c.remove = j.value("remove", 0), c.remove_after_iteration = j.value("after_iteration", -1);
  if (j.contains("expand")) {
    c.expand = j["expand"].value("ranks", 0), c.expand_after_iteration = j["expand"].value("after_iteration", -1);
  }
  if (c.remove == 0 && c.expand == 0) {
    throw InputError(t.file +
                     ": $.config: expected a run with an expansion or a removal (\"expand\" or \"remove\"), got none");
  }
  return c;
}

int run(const RedistributionArgs& a, const std::string& command_line) {
  Profile profile = read_profile(a.platform);
  if (!(profile.network.bandwidth_bytes_per_s > 0)) {
    throw InputError(a.platform + ": $.network: expected a network model to add the redistribution model to");
  }
  std::vector<calibrate::RedistributionSample> samples;
  nlohmann::json listed = nlohmann::json::array();
  for (const auto& file : a.traces) {
    hetperf::TraceFile t = hetperf::read_trace(file);
    if (t.backend != "mpi")
      throw InputError(file + ": $.backend: expected \"mpi\" (a measured run), got \"" + t.backend + "\"");
    apps::LuConfig cfg = lu_config(t);
    std::vector<hetperf::TraceEvent> events;
    for (const auto& r : t.ranks) events.insert(events.end(), r.events.begin(), r.events.end());
    for (const auto& r : apps::lu_redistributions(events, cfg, static_cast<int>(t.ranks.size()))) {
      std::string source = file + ", after iteration " + std::to_string(r.after_iteration);
      samples.push_back({static_cast<double>(r.bytes), r.from_ranks, r.to_ranks, r.time_s(), source});
      listed.push_back({{"trace", file},
                        {"after_iteration", r.after_iteration},
                        {"from_ranks", r.from_ranks},
                        {"to_ranks", r.to_ranks},
                        {"bytes", r.bytes},
                        {"time_s", r.time_s()}});
    }
  }
  auto fit = calibrate::fit_redistribution(samples, "redistribution");
  RedistributionModel m;
  m.latency_s = fit.latency_s;
  m.bandwidth_bytes_per_s = fit.bandwidth_bytes_per_s;
  m.fit = calibrate::to_json(fit.fit);
  m.fit["x"] = "bytes moved / min(from_ranks, to_ranks)";
  m.fit["samples"] = listed;
  m.fit["command"] = command_line;
  profile.network.redistribution = m;
  write_json_file(a.out, to_json(profile));
  std::cout << fit.fit.brief_report() << "\n"
            << "redistribution: l = " << fit.latency_s << " s, b = " << fit.bandwidth_bytes_per_s << " B/s from "
            << samples.size() << " resizes; wrote " << a.out << "\n";
  return 0;
}

}  // namespace

void add_redistribution_command(CLI::App& app, const std::string& command_line, Action& action) {
  auto args = std::make_shared<RedistributionArgs>();
  CLI::App* cmd = app.add_subcommand("calibrate-redistribution",
                                     "Fit the redistribution cost t = l + s/b to the resizes of real LU runs "
                                     "(hetperf-lu --expand/--remove --trace) and add it to a profile");
  cmd->add_option("-p,--platform", args->platform, "The profile to extend")->required();
  cmd->add_option("-o,--out", args->out, "Where to write the extended profile")->required();
  cmd->add_option("traces", args->traces, "Traces of resized LU runs (at least three resizes in all)")->required();
  cmd->callback([&action, args, command_line] { action = [args, command_line] { return run(*args, command_line); }; });
}

}  // namespace hetperf::cli
