#include <doctest/doctest.h>

#include "io/svg_timeline.hpp"
#include "model/size_string.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the timeline has one box per op, a memory line and a peak per device, and the limit") {
  Schedule s = test::generated("zbh1", 4, 8);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1, 1000, 250));
  std::string svg = svg_timeline(s, r, {1200, Bytes{3500}});
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(count(svg, "<rect class=\"op\"") == s.op_count());
  CHECK(count(svg, "<polyline class=\"memory\"") == 4);
  CHECK(count(svg, "<circle class=\"peak\"") == 4);
  CHECK(count(svg, "<line class=\"limit\"") == 1);
  CHECK(count(svg, "<polyline class=\"critical\"") == 1);
  // F(s0,m0) runs 0-1 ms: it starts at the left margin and is 1/27 of the 1200-pixel plot wide.
  CHECK(svg.find("<title>F stage 0 micro-batch 0: 0.000 to 1.000 ms</title>") != std::string::npos);
  CHECK(svg.find("width=\"44.44\"") != std::string::npos);
  CHECK(svg.find("</svg>\n") == svg.size() - 7);
}

TEST_CASE("the same input gives the same bytes, and no limit draws no limit line") {
  Schedule s = test::generated("zbv", 3, 6);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1, 10, 2));
  std::string a = svg_timeline(s, r), b = svg_timeline(s, r);
  CHECK(a == b);
  CHECK(count(a, "class=\"limit\"") == 0);
  // A device's later chunk is drawn lighter: ZB-V holds two chunks per device, so half of the
  // ops, plus the legend's three lighter keys (F, B and W on a later chunk).
  CHECK(count(a, "fill-opacity=\"0.55\"") == s.op_count() / 2 + 3);
  CHECK(count(a, "W weight gradient, later chunk</text>") == 1);
}

TEST_CASE("a comparison stacks the runs on one time scale") {
  // 1F1B takes 33 units and ZB-H1 27 (simulator_test.cpp): on the shared scale ZB-H1's first
  // forward, 1 unit long, is 1200/33 pixels wide, not 1200/27.
  Schedule a = test::generated("1f1b", 4, 8), b = test::generated("zbh1", 4, 8);
  SimResult ra = simulate(a, test::uniform(a, 1, 1, 1)), rb = simulate(b, test::uniform(b, 1, 1, 1));
  std::string svg = svg_comparison({{&a, &ra}, {&b, &rb}});
  CHECK(count(svg, "<g transform=") == 2);
  CHECK(count(svg, "<rect class=\"op\"") == a.op_count() + b.op_count());
  CHECK(count(svg, "width=\"36.36\"") > 0);   // 1200 / 33
  CHECK(count(svg, "width=\"44.44\"") == 0);  // 1200 / 27 would be ZB-H1 alone
}

TEST_CASE("the memory lines have device colours, none an op's, and a legend of their own") {
  Schedule s = test::generated("zbh1", 4, 8);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1, 1000, 250));
  const std::string svg = svg_timeline(s, r);
  const std::string op_colours = "#4e79a7 #59a14f #f28e2b #b07aa1 #e15759";
  std::size_t lines = 0;
  for (std::size_t at = svg.find("<polyline class=\"memory\""); at != std::string::npos;
       at = svg.find("<polyline class=\"memory\"", at + 1)) {
    const std::size_t stroke = svg.find("stroke=\"", at) + 8;
    const std::string colour = svg.substr(stroke, 7);
    CAPTURE(colour);
    CHECK(op_colours.find(colour) == std::string::npos);
    ++lines;
  }
  CHECK(lines == 4);
  CHECK(count(svg, "class=\"device-key\"") == 4);
  CHECK(count(svg, ">device 3</text>") == 2);  // the lane's name and the line's key
}

TEST_CASE("without memory costs there is no memory plot") {
  Schedule s = test::generated("1f1b", 2, 2);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1));
  const std::string svg = svg_timeline(s, r);
  CHECK(count(svg, "class=\"memory\"") == 0);
  CHECK(count(svg, ">memory</text>") == 0);
  CHECK(count(svg, "1 B") == 0);
  // GPipe's path by hand (critical_path_test.cpp): 6 ops, two of them after another device's.
  Schedule g = test::generated("gpipe", 2, 2);
  SimResult rg = simulate(g, test::uniform(g, 1, 1, 1));
  CHECK(count(svg_timeline(g, rg), "<title>critical path: 6 ops and 2 transfers, 0.000 to 9.000 ms</title>") == 1);
}

TEST_CASE("a comparison has one memory scale and the limit in every panel") {
  // 1F1B's highest peak is P x a_F = 4000 bytes, ZB-H2's (2P-1) a_F = 7000 (schedules.md); the
  // limit, 8000, is above both, so both plots run to 8000 and neither to its own peak.
  Schedule a = test::generated("1f1b", 4, 8), b = test::generated("zbh2", 4, 8);
  SimResult ra = simulate(a, test::uniform(a, 1, 1, 1, 1000, 250));
  SimResult rb = simulate(b, test::uniform(b, 1, 1, 1, 1000, 250));
  REQUIRE(ra.devices[0].peak_memory == 4000);
  REQUIRE(rb.devices[0].peak_memory == 7000);
  const std::string svg = svg_comparison({{&a, &ra}, {&b, &rb}}, {1200, Bytes{8000}});
  CHECK(count(svg, ">" + format_size(8000) + "</text>") == 2);
  CHECK(count(svg, ">" + format_size(7000) + "</text>") == 0);
  CHECK(count(svg, "<line class=\"limit\"") == 2);
  // Without the limit the scale is ZB-H2's peak in both.
  const std::string bare = svg_comparison({{&a, &ra}, {&b, &rb}});
  CHECK(count(bare, ">" + format_size(7000) + "</text>") == 2);
}

TEST_CASE("ops narrower than a few pixels lose their borders, then merge into pixel columns") {
  // 1F1B, P = 4, M = 64, F = 1, BW = 2 ms: makespan 201 ms. 502 pixels give 2.5 per ms: F boxes
  // of 2.5 pixels, below the 3 that take a border, BW of 5 with one; the mean, 1.5 ms or 3.75
  // pixels, keeps a box per op. 256 BW, one per micro-batch and device.
  Schedule s = test::generated("1f1b", 4, 64);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1));
  const std::string boxes = svg_timeline(s, r, {502, {}});
  CHECK(count(boxes, "<rect class=\"op\"") == s.op_count());
  CHECK(count(boxes, "stroke=\"#fff\"") == 256);
  // ZB-H1, P = 64, M = 512 at 1200 pixels: 1 ms ops on a 1599 ms axis, 0.75 pixels each. Each
  // lane is drawn as pixel columns, a steady state's in one box: far fewer boxes than the
  // 98304 ops, none with a border, and every lane still titled for hover.
  Schedule z = test::generated("zbh1", 64, 512);
  SimResult rz = simulate(z, test::uniform(z, 1, 1, 1, 1000, 250));
  const std::string columns = svg_timeline(z, rz);
  CHECK(count(columns, "<rect class=\"op\"") == 0);
  CHECK(count(columns, "stroke=\"#fff\"") == 0);
  CHECK(count(columns, "<rect class=\"lane\"") == 64);
  CHECK(count(columns, "<rect class=\"ops\"") > 64);
  CHECK(count(columns, "<rect class=\"ops\"") < 64 * 20);
  CHECK(count(columns, "each pixel mixes its ops' colours by time") == 1);
}
