// Catch2 v2 main, shared by every stage's test binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
