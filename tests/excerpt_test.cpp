#include <doctest/doctest.h>

#include <string>

#include "io/excerpt.hpp"

using namespace pipeplan;

TEST_CASE("a long value is cut in an error message and its length said") {
  CHECK(excerpt("1Q0") == "1Q0");
  CHECK(excerpt(std::string(40, 'x')) == std::string(40, 'x'));  // at the limit: whole
  // 10 MiB: the first 40 bytes, then the length, 10 x 1024 x 1024 = 10485760.
  CHECK(excerpt(std::string(10 << 20, 'x')) == std::string(40, 'x') + "... (10485760 bytes)");
  // "é" is 2 bytes (C3 A9): a cut at 4 bytes of "aaaé" + more would split it; it backs up to 3.
  CHECK(excerpt("aaa\xC3\xA9zzzz", 4) == "aaa... (9 bytes)");
}
