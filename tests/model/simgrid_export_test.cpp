// hetperf export --simgrid's writer: names escaped for XML, every digit kept, a partial profile refused.
#include <catch2/catch.hpp>

#include "hetperf/model/simgrid_export.hpp"
#include "test_support.hpp"

using namespace hetperf;

TEST_CASE("model: a profile as a SimGrid platform keeps speeds, cores and the star's links") {
  nlohmann::json j = {
      {"schema", "hetperf.profile/1"},
      {"computers",
       {{{"name", "a<&\"b'>"}, {"cores", 3}, {"mips", 1234.5}, {"main_memory_mb", 512}, {"overhead_latency_s", 1e-4}}}},
      {"network", {{"latency_s", 1e-4}, {"bandwidth_bytes_per_s", 1.25e8}}}};
  const std::string xml = simgrid_platform_xml(profile_from_json(j, "p.json"));
  CHECK_THAT(xml, Catch::Contains("<host id=\"a&lt;&amp;&quot;b&apos;&gt;\" speed=\"1234500000f\" core=\"3\">"));
  CHECK_THAT(xml, Catch::Contains(
                      "bandwidth=\"125000000Bps\" latency=\"5.0000000000000002e-05s\" sharing_policy=\"SPLITDUPLEX\""));
  CHECK_THAT(xml, Catch::Contains("<zone id=\"hetperf\" routing=\"Cluster\">"));
  // Well-formed XML: no "--" inside a comment, also from a file name that holds one.
  const std::string dashed = simgrid_platform_xml(profile_from_json(j, "runs--2/p.json"));
  CHECK_THAT(dashed, Catch::Contains("<prop id=\"hetperf_profile\" value=\"runs--2/p.json\"/>"));
  for (std::size_t open = dashed.find("<!--"); open != std::string::npos; open = dashed.find("<!--", open + 4)) {
    const std::size_t close = dashed.find("-->", open + 4);
    REQUIRE(close != std::string::npos);
    CHECK(dashed.substr(open + 4, close - open - 4).find("--") == std::string::npos);
  }
  j.erase("network");
  j["computers"][0].erase("overhead_latency_s");
  CHECK(test::input_error([&] { simgrid_platform_xml(profile_from_json(j, "p.json")); }) ==
        "p.json: $.network.bandwidth_bytes_per_s: missing, needed by a SimGrid platform (its links)");
}
