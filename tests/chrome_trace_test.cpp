#include <doctest/doctest.h>

#include "io/chrome_trace.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("the trace has one complete event per op with the simulated times, and one flow per transfer") {
  // 1F1B, P = 2, M = 2, the two-stage scenario of simulator_test.cpp: F(s1,m0) starts at 1.5 ms.
  Schedule s = test::generated("1f1b", 2, 2);
  SimResult r = simulate(s, test::two_stage_costs({10, 0.5}, {20, 2.0}));
  Json trace = chrome_trace(s, r);
  int complete = 0, starts = 0, finishes = 0;
  Bytes peak0 = 0;
  for (const Json& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "X") {
      ++complete;
      if (e["name"] == "F s1 m0") {
        CHECK(e["ts"].get<double>() == 1500.0);  // microseconds
        CHECK(e["dur"].get<double>() == 2000.0);
        CHECK(e["pid"] == 1);
      }
    }
    if (ph == "s") ++starts;
    if (ph == "f") ++finishes;
    if (ph == "C" && e["pid"] == 0) peak0 = std::max(peak0, e["args"]["bytes"].get<Bytes>());
  }
  CHECK(complete == 8);
  // Every micro-batch crosses the one link twice: its activation forward, its gradient back.
  CHECK(starts == 4);
  CHECK(finishes == 4);
  CHECK(peak0 == r.devices[0].peak_memory);
  CHECK(trace["metadata"]["makespan_ms"] == 17.0);
}

TEST_CASE("ops on one device need no flow: the V placement's turn stays on device 0") {
  Schedule s = test::generated("zbv", 1, 2);  // both chunks on the single device
  Json trace = chrome_trace(s, simulate(s, test::uniform(s, 1, 1, 1)));
  for (const Json& e : trace["traceEvents"]) CHECK(e["ph"] != "s");
}

TEST_CASE("a comparison trace gives each schedule its own processes") {
  Schedule a = test::generated("1f1b", 2, 2), b = test::generated("zbh1", 3, 3);
  SimResult ra = simulate(a, test::uniform(a, 1, 1, 1)), rb = simulate(b, test::uniform(b, 1, 1, 1));
  Json trace = chrome_trace_comparison({{"1f1b", &a, &ra}, {"zbh1", &b, &rb}});
  CHECK(trace["metadata"]["schedules"][1]["first_pid"] == 2);
  int named = 0;
  for (const Json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      ++named;
      if (e["pid"] == 4) CHECK(e["args"]["name"] == "zbh1: device 2");
    }
  }
  CHECK(named == 5);
}
