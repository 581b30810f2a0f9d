// Tests for model/src/sha256.cpp against the FIPS 180-4 example vectors.
#include <catch2/catch.hpp>

#include <string>

#include "hetperf/model/sha256.hpp"

using hetperf::sha256_hex;

TEST_CASE("model: sha256: matches the standard's example vectors") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("model: sha256: lengths around the padding boundary hash differently and deterministically") {
  // 55, 56 and 64 bytes exercise the one- and two-block padding paths.
  for (std::size_t n : {55u, 56u, 63u, 64u, 65u}) {
    std::string a(n, 'x');
    CHECK(sha256_hex(a) == sha256_hex(a));
    CHECK(sha256_hex(a) != sha256_hex(a + "x"));
    CHECK(sha256_hex(a).size() == 64);
  }
  // Known value for 64 'a's.
  CHECK(sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}
