#include <doctest/doctest.h>

#include "model/size_string.hpp"

using namespace pipeplan;

TEST_CASE("sizes parse in decimal and binary units") {
  CHECK(parse_size("300000") == 300000);
  CHECK(parse_size("2GiB") == 2LL * 1024 * 1024 * 1024);
  CHECK(parse_size("1.5GB") == 1'500'000'000);
  CHECK(parse_size("512 MiB") == 512LL * 1024 * 1024);
  CHECK(parse_size("1kb") == 1000);
  CHECK(parse_size("10B") == 10);
  CHECK(parse_size("0.5KiB") == 512);
}

TEST_CASE("malformed sizes are refused") {
  for (const char* bad : {"", "GiB", "-1GiB", "1.2.3GB", "nan", "inf", "1e9", "2 GiBs", "0x10", "99999999999TiB"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_size(bad).has_value());
  }
}

TEST_CASE("sizes format in binary units with two decimals") {
  CHECK(format_size(900) == "900 B");
  CHECK(format_size(1536) == "1.50 KiB");
  CHECK(format_size(3LL * 1024 * 1024 * 1024) == "3.00 GiB");
}
