// libFuzzer harness: bytes -> sim::batch::parse_swf. InputError naming the file and line is the
// one expected failure; a trace that parses must also survive format_swf and read back equal.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hetperf/model/error.hpp"
#include "hetperf/simulator/batch/swf.hpp"

namespace batch = hetperf::sim::batch;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string file = "fuzz-input.swf";
  batch::SwfTrace trace;
  try {
    trace = batch::parse_swf(std::string_view(reinterpret_cast<const char*>(data), size), file);
  } catch (const hetperf::InputError& e) {
    if (std::string(e.what()).rfind(file + ":", 0) != 0) {
      std::fprintf(stderr, "InputError without the file name first: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  // The format is read and written without loss (swf.hpp): what was read must write and read back equal.
  if (!(batch::parse_swf(batch::format_swf(trace), file) == trace)) {
    std::fprintf(stderr, "SWF trace differs after format_swf and parse_swf\n");
    std::abort();
  }
  return 0;
}
