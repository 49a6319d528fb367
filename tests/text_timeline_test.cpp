#include <doctest/doctest.h>

#include <algorithm>

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

TEST_CASE("a cell the device is busy for shows busy, however many ops share it") {
  // 1F1B, P = 1, M = 8, F = B = W = 1: F, BW, F, BW, ... with no gap, 8 x 3 = 24 ms. In 4
  // columns each cell is 6 ms holding two F (2 ms) and two BW (4 ms): no single op covers half of
  // a cell, yet the device never idles; the fused backward covers most of each, so X.
  Schedule s = test::generated("1f1b", 1, 8);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1));
  CHECK(text_timeline(s, r, {11 + 4, false}).find("device 0   XXXX\n") != std::string::npos);
}

TEST_CASE("the terminal's idle cells are the bubble when the cells fit the ops") {
  // 1F1B, P = 4, M = 64, F = 1, BW = 2: makespan (M+P-1) x 3 = 201 ms, each device busy 64 x 3 =
  // 192 ms and idle 9. With 201 columns every cell is one millisecond and every op starts and
  // ends on a cell's edge, so each device shows 9 dots: 36 of 804 cells, the 4.48% bubble.
  Schedule s = test::generated("1f1b", 4, 64);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1));
  const std::string text = text_timeline(s, r, {11 + 201, false});
  std::size_t dots = 0;
  for (std::size_t d = 0; d < 4; ++d) {
    const std::size_t at = text.find("device " + std::to_string(d));
    const std::string row = text.substr(at + 11, 201);
    CHECK(std::count(row.begin(), row.end(), '.') == 9);
    dots += static_cast<std::size_t>(std::count(row.begin(), row.end(), '.'));
  }
  CHECK(dots == 36);
}

TEST_CASE("the terminal view marks the critical path's cells under each device") {
  // 1F1B, P = 2, M = 2, F = B = W = 1 ms (BW 2), transfers 0.5 ms; timed by hand in
  // chrome_trace_test.cpp: device 0 F0 0-1, F1 1-2, BW0 5-7, BW1 8-10; device 1 F0 1.5-2.5, BW0
  // 2.5-4.5, F1 4.5-5.5, BW1 5.5-7.5. The path: device 0's F0, device 1's F0, BW0, F1 and BW1,
  // device 0's BW1. With 20 columns each cell is 0.5 ms: device 0's path covers cells 0-1 (F0)
  // and 16-19 (BW1), device 1's cells 3-14 (1.5 to 7.5 ms); its F1 and device 0's BW0 go unmarked.
  Schedule s = test::generated("1f1b", 2, 2);
  CostModel c = test::uniform(s, 1, 1, 1);
  c.transfer.fixed_ms = 0.5;
  const SimResult r = simulate(s, c);
  const std::string text = text_timeline(s, r, {11 + 20, false});
  CHECK(text.find("device 0   FFFF......XXXX..XXXX\n"
                  "           ^^              ^^^^\n"
                  "device 1   ...FFXXXXFFXXXX.....\n"
                  "              ^^^^^^^^^^^^\n") != std::string::npos);
  CHECK(text.find("^ the critical path (the first iteration's)") != std::string::npos);
}

TEST_CASE("without a critical path the terminal view has no mark rows and no legend for them") {
  // No timeline recorded: no ops, so no path; the view is what it was before the marks.
  Schedule s = test::generated("1f1b", 2, 2);
  const SimResult r = simulate(s, test::uniform(s, 1, 1, 1), SimOptions{1, OptimizerMode::Sync, false});
  const std::string text = text_timeline(s, r, {11 + 8, false});
  CHECK(text.find('^') == std::string::npos);
  CHECK(text.find("device 0   ........\ndevice 1   ........\n") != std::string::npos);
  const std::string legend = "; . idle for at least half of the cell\n";
  CHECK(text.compare(text.size() - legend.size(), legend.size(), legend) == 0);
}
