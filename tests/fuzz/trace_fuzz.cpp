// libFuzzer harness: bytes -> parse_json_text -> hetperf::trace_from_json. See fuzz_json.hpp.
#include "fuzz_json.hpp"
#include "hetperf/apps/trace_view.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hetperf::fuzz::run_json_reader(
      data, size, [](const nlohmann::json& j, const std::string& file) { (void)hetperf::trace_from_json(j, file); });
}
