#include <doctest/doctest.h>

#include "io/html_report.hpp"
#include "sim/critical_path.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("the HTML report is one self-contained page with the summary, the devices and the timeline") {
  Schedule s = test::generated("zbh1", 4, 8);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1, 1000, 250));
  std::string html = html_report(s, r, "costs: unit");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<td>27.000 ms</td>") != std::string::npos);  // the makespan, 8*3 + 3
  CHECK(html.find("<table id=\"devices\">") != std::string::npos);
  CHECK(html.find("<svg xmlns=") != std::string::npos);
  // Nothing to fetch: no scripts, no external links or images.
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html == html_report(s, r, "costs: unit"));
  // The critical path under the timeline: a row per op, the last ending at the makespan.
  const auto path = critical_path(s, r);
  CHECK(html.find("<p id=\"critical-summary\">" + std::to_string(path.size()) + " ops") != std::string::npos);
  const std::size_t table = html.find("<table id=\"critical\">");
  REQUIRE(table != std::string::npos);
  std::size_t rows = 0;
  for (std::size_t at = html.find("<tr><td>", table); at != std::string::npos && at < html.find("</table>", table);
       at = html.find("<tr><td>", at + 1)) {
    ++rows;
  }
  CHECK(rows == path.size());
  CHECK(html.find("<td>27.000 ms</td><td>" + describe(path.back().op->op)) != std::string::npos);
}
