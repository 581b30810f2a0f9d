// Helpers shared by the test binaries.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "hetperf/model/error.hpp"

namespace hetperf::test {

// Runs `f`, which must throw InputError; returns its message (and fails the test otherwise).
template <typename F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError");
  return {};
}

// A fresh directory under the build tree, removed with the object.
class TempDir {
 public:
  explicit TempDir(const std::string& name) : path_(std::filesystem::path(HETPERF_BINARY_DIR) / "test-tmp" / name) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& file, const std::string& text) const {
    std::ofstream(path_ / file) << text;
    return path_ / file;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace hetperf::test
