// The common body of the JSON reader harnesses: the bytes go through parse_json_text, exactly as a file
// read by read_json_file, then through one reader. A hetperf::InputError is the one expected failure,
// and its message must name the file; anything else escaping (an nlohmann or standard exception, a
// crash, undefined behaviour, a hang) is a bug the fuzzer reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hetperf/model/error.hpp"
#include "hetperf/model/file_io.hpp"

namespace hetperf::fuzz {

inline const std::string kFile = "fuzz-input.json";

// An InputError whose message does not start with the file's name is not the clear error promised.
inline void check_message(const std::string& what, const std::string& file) {
  if (what.rfind(file + ":", 0) != 0) {
    std::fprintf(stderr, "InputError without the file name first: %s\n", what.c_str());
    std::abort();
  }
}

template <class Reader>
int run_json_reader(const std::uint8_t* data, std::size_t size, Reader read) {
  try {
    const nlohmann::json j = parse_json_text(std::string_view(reinterpret_cast<const char*>(data), size), kFile);
    read(j, kFile);
  } catch (const InputError& e) {
    check_message(e.what(), kFile);
  }
  return 0;
}

}  // namespace hetperf::fuzz
