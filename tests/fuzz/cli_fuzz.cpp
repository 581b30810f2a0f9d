// libFuzzer harness for the hetperf command line: the input is argv, one word per line (or
// NUL-separated), parsed exactly as main() does with the action never run (nothing probed, read or
// written). A usage error is expected (exit code 2); any exception escaping is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words{"hetperf"};
  std::string word;
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n' || c == '\0') {
      words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  (void)hetperf::cli::run(static_cast<int>(words.size()), argv.data(), /*parse_only=*/true);
  return 0;
}
