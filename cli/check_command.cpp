// `hetperf check FILE...`: validates hetperf files (any kind, by their "schema") without running anything.
#include <iostream>

#include "commands.hpp"
#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"
#include "hetperf/model/json_node.hpp"
#include "hetperf/model/measurement.hpp"
#include "hetperf/model/prediction.hpp"
#include "hetperf/model/profile.hpp"
#include "hetperf/model/workload.hpp"

namespace hetperf::cli {

void add_check_command(CLI::App& app, const std::string&, Action& action) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("check", "Validate hetperf files (measurement, profile, workload, prediction) "
                                              "by their \"schema\"; prints the first error of each bad file.");
  cmd->add_option("files", *files, "Files to check")->required();
  cmd->callback([&action, files] {
    action = [files] {
      int bad = 0;
      for (const std::string& f : *files) {
        try {
          nlohmann::json j = read_json_file(f);
          JsonNode root(j, f);
          if (!root.is_object()) root.fail("a JSON object with a \"schema\" field");
          std::string schema = root.string("schema");
          std::string kind = schema.substr(0, schema.find('/'));
          if (kind == "hetperf.measurement") measurement_from_json(j, f);
          else if (kind == "hetperf.profile") profile_from_json(j, f);
          else if (kind == "hetperf.workload") workload_from_json(j, f);
          else if (kind == "hetperf.prediction") prediction_from_json(j, f);
          else root.field("schema").fail("hetperf.measurement, hetperf.profile, hetperf.workload or hetperf.prediction");
          std::cout << f << ": ok (" << schema << ")\n";
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
