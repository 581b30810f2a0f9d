// hetperf export: a calibrated profile in another simulator's format (SimGrid's platform XML).
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/profile.hpp"
#include "hetperf/model/simgrid_export.hpp"

namespace hetperf::cli {

void add_export_command(CLI::App& app, const std::string& command_line, Action& action) {
  (void)command_line;
  struct Args {
    std::string platform, simgrid;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("export",
                                 "Write a platform profile for another simulator: --simgrid writes a "
                                 "SimGrid platform file (hosts, cores, the star network)");
  cmd->add_option("-p,--platform", args->platform, "Platform profile to export")->required();
  cmd->add_option("--simgrid", args->simgrid, "SimGrid platform XML to write (atomically)")->required();
  cmd->callback([&action, args] {
    action = [args] {
      const std::string xml = simgrid_platform_xml(read_profile(args->platform));
      write_file_atomic(args->simgrid, xml);
      std::cout << "wrote " << args->simgrid << "\n";
      return 0;
    };
  });
}

}  // namespace hetperf::cli
