#include <doctest/doctest.h>

#include "io/svg_timeline.hpp"
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
  // A device's later chunk is drawn lighter.
  CHECK(count(a, "fill-opacity=\"0.6\"") == s.op_count() / 2);
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
