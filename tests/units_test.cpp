#include <doctest/doctest.h>

#include <cmath>

#include "model/error.hpp"
#include "model/units.hpp"

using namespace pipeplan;

TEST_CASE("milliseconds become nanoseconds, rounded to the nearest") {
  CHECK(ms_to_ns(0.0) == 0);
  CHECK(ms_to_ns(1.0) == 1'000'000);
  CHECK(ms_to_ns(0.1) == 100'000);  // 0.1 is not exact in binary; rounding hides that
  CHECK(ms_to_ns(2.5e-6) == 3);     // 2.5 ns: halves go away from zero
  CHECK(ms_to_ns(1.4e-6) == 1);
  CHECK(ns_to_ms(1'500'000) == doctest::Approx(1.5));
}

TEST_CASE("times that cannot be simulated are refused") {
  CHECK_THROWS_AS((void)ms_to_ns(-1.0), Error);
  CHECK_THROWS_AS((void)ms_to_ns(NAN), Error);
  CHECK_THROWS_AS((void)ms_to_ns(INFINITY), Error);
  CHECK_THROWS_AS((void)ms_to_ns(1e11), Error);
}
