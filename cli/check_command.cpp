// `hetperf check FILE...`: validates hetperf files (any kind, by their "schema") without running anything;
// with --platform, workloads are also bound to that profile (hetperf/model/bind.hpp).
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "hetperf/model/bind.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/measurement.hpp"
#include "hetperf/model/prediction.hpp"
#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"
#include "hetperf/validate/testbed.hpp"

namespace hetperf::cli {

void add_check_command(CLI::App& app, const std::string&, Action& action) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto platform = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("check",
                                     "Validate hetperf files (measurement, profile, workload, prediction) "
                                     "by their \"schema\"; prints the first error of each bad file.");
  cmd->add_option("files", *files, "Files to check")->required();
  cmd->add_option("-p,--platform", *platform,
                  "Platform profile the workloads must fit: their computer and process names, and the kernel models, "
                  "disk and network figures their jobs need (default: none, each file is checked on its own)");
  cmd->callback([&action, files, platform] {
    action = [files, platform] {
      std::optional<Profile> profile;
      if (!platform->empty()) profile = read_profile(*platform);
      int bad = 0;
      for (const std::string& f : *files) {
        try {
          nlohmann::json j = read_json_file(f);
          JsonNode root(j, f);
          if (!root.is_object()) root.fail("a JSON object with a \"schema\" field");
          std::string schema = root.string("schema");
          std::string kind = schema.substr(0, schema.find('/'));
          if (kind == "hetperf.measurement")
            measurement_from_json(j, f);
          else if (kind == "hetperf.profile")
            profile_from_json(j, f);
          else if (kind == "hetperf.workload") {
            Workload w = workload_from_json(j, f);
            if (profile) bind(w, *profile);
          } else if (kind == "hetperf.prediction")
            prediction_from_json(j, f);
          else if (kind == "hetperf.testbed")
            validate::parse_testbed_spec(j, f, validate::online_cpus());
          else
            root.field("schema").fail(
                "hetperf.measurement, hetperf.profile, hetperf.workload, hetperf.prediction or hetperf.testbed");
          std::cout << f << ": ok (" << schema << (profile && kind == "hetperf.workload" ? ", fits " + *platform : "")
                    << ")\n";
        } catch (const InputError& e) {
          std::cerr << "hetperf: error: " << e.what() << "\n";
          ++bad;
        }
      }
      return bad ? 2 : 0;
    };
  });
}

}  // namespace hetperf::cli
