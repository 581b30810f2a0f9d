// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the provenance hash of input files.
#pragma once

#include <string>
#include <string_view>

namespace hetperf {

std::string sha256_hex(std::string_view data);

}  // namespace hetperf
