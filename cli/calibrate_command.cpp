// `hetperf calibrate`: measurement files in, platform profile out.
#include <iostream>

#include "commands.hpp"
#include "hetperf/calibrate/profile_builder.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "output.hpp"

namespace hetperf::cli {
namespace {

struct CalibrateArgs {
  std::vector<std::string> files;
  std::string out = "platform.json";
  std::vector<std::string> names;
};

}  // namespace

void add_calibrate_command(CLI::App& app, const std::string& command_line, Action& action) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand("calibrate", "Turn measurement files (one per machine) into a platform profile: "
                                                  "the computers' capacities and the network model t = l + s/b.");
  cmd->add_option("measurements", args->files, "Measurement files written by `hetperf probe`")->required();
  cmd->add_option("-o,--out", args->out, "Platform profile to write (atomically)")->capture_default_str();
  cmd->add_option("--name", args->names,
                  "Computer names, comma-separated, one per measurement file in order (default: each file's machine)")
      ->delimiter(',');
  cmd->callback([&action, args, command_line] {
    action = [args, command_line] {
      if (!args->names.empty() && args->names.size() != args->files.size()) {
        throw InputError("--name: expected " + std::to_string(args->files.size()) + " names (one per measurement file), got " +
                         std::to_string(args->names.size()));
      }
      std::vector<calibrate::CalibrationInput> inputs;
      for (std::size_t i = 0; i < args->files.size(); ++i) {
        inputs.push_back(calibrate::load_measurement(args->files[i]));
        if (!args->names.empty()) inputs.back().name = args->names[i];
      }
      Profile p = calibrate::build_profile(inputs, {command_line});
      write_json_file(args->out, to_json(p));
      std::cout << "computer            cores        MIPS   memory MB    read B/s   write B/s          lo\n";
      for (const Computer& c : p.computers) {
        char line[256];
        std::snprintf(line, sizeof line, "%-18s %6d %11.1f %11.0f %11s %11s %11s\n", c.name.c_str(), c.cores, c.mips,
                      c.main_memory_mb, si(c.disk_read_bytes_per_s, "").c_str(),
                      si(c.disk_write_bytes_per_s, "").c_str(), si(c.overhead_latency_s, "s").c_str());
        std::cout << line;
      }
      std::cout << "network: l = " << si(p.network.latency_s, "s") << ", b = " << si(p.network.bandwidth_bytes_per_s, "B/s")
                << "\n";
      for (const auto& w : p.warnings) std::cerr << "hetperf calibrate: warning: " << w << "\n";
      std::cout << "wrote " << args->out << "\n";
      return 0;
    };
  });
}

}  // namespace hetperf::cli
