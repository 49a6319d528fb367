#include <doctest/doctest.h>

#include "io/html_report.hpp"
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
}
