// SHA-256 through OpenSSL's EVP digest interface (libcrypto), not a hand-written compression loop.
#include "hetperf/model/sha256.hpp"

#include <openssl/evp.h>

#include <memory>

#include "hetperf/model/error.hpp"

namespace hetperf {

std::string sha256_hex(std::string_view data) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HETPERF_CHECK(ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1 &&
                    EVP_DigestUpdate(ctx.get(), data.data(), data.size()) == 1 &&
                    EVP_DigestFinal_ex(ctx.get(), digest, &length) == 1,
                "OpenSSL's SHA-256 failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

}  // namespace hetperf
