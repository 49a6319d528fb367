#include <doctest/doctest.h>

#include "io/text_timeline.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("the terminal view gives each device a row of one character per slice of time") {
  // GPipe, P = 2, M = 2, F = B = W = 1: makespan (M+P-1)*3 = 9 ms. With 9 columns each column is
  // 1 ms. Device 0: F0 F1, idles while device 1 works (2-5), then BW0 at 5-7... by hand:
  // device 1: idle 0-1, F0 1-2, F1 2-3, BW0 3-5, BW1 5-7; device 0: BW0 5-7 waits for device 1's
  // BW0 (ends 5), BW1 7-9.
  Schedule s = test::generated("gpipe", 2, 2);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1));
  std::string text = text_timeline(s, r, {11 + 9, false});
  CHECK(text.find("device 0   FF...XXXX\n") != std::string::npos);
  CHECK(text.find("device 1   .FFXXXX..\n") != std::string::npos);
  CHECK(text.find("9.000 ms") != std::string::npos);
}

TEST_CASE("colour wraps each op letter in ANSI codes, a later chunk is lower case") {
  Schedule s = test::generated("zbv", 1, 1);  // F0 f0 b0 w0 B0 W0 on one device
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1));
  std::string plain = text_timeline(s, r, {11 + 6, false});
  CHECK(plain.find("device 0   FfbwBW\n") != std::string::npos);
  std::string coloured = text_timeline(s, r, {11 + 6, true});
  CHECK(coloured.find("\x1b[44;97mF\x1b[0m") != std::string::npos);
}
