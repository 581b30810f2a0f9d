// Reading input files with precise errors, and writing outputs atomically (temporary file, then rename),
// so a crash or an error never leaves a partial output or destroys what the user had.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace hetperf {

// Reads a whole file; InputError "<path>: cannot read: <reason>" on failure.
std::string read_text_file(const std::filesystem::path& path);

// Reads and parses JSON; invalid JSON gives InputError "<path>:<line>:<column>: invalid JSON: <reason>".
nlohmann::json read_json_file(const std::filesystem::path& path);

// Writes `content` to `path` atomically: a temporary file in the same directory, fsync, rename.
// Parent directories are created. Throws EnvironmentError when the file system refuses.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

// JSON with two-space indentation and a final newline, written atomically.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace hetperf
