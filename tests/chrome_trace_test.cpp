#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

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
    if (ph == "X" && e["pid"] != 2) {  // pid 2: the critical path's track, tested below
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
  // 2 + 3 devices, then each run's critical path after all of them: pids 5 and 6.
  CHECK(named == 7);
  for (const Json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" && e["pid"] == 5)
      CHECK(e["args"]["name"] == "1f1b: critical path");
    if (e["ph"] == "M" && e["name"] == "process_name" && e["pid"] == 6)
      CHECK(e["args"]["name"] == "zbh1: critical path");
  }
}

TEST_CASE("the trace marks the critical path: its ops, its transfers' flows and a track of its own") {
  // 1F1B, P = 2, M = 2, F = B = W = 1 ms (BW 2), transfers 0.5 ms. By hand: device 0 runs F0 0-1
  // and F1 1-2; device 1 runs F0 1.5-2.5 (after F0's transfer), BW0 2.5-4.5, F1 4.5-5.5 (its input
  // came at 2.5) and BW1 5.5-7.5; device 0's BW0 waits for its gradient, 4.5 + 0.5: 5-7, and BW1
  // for 7.5 + 0.5: 8-10, the makespan. Back from device 0's BW1: it waited for device 1's BW1 (a
  // transfer), which followed F1, BW0 and F0 there with no gap, and F0 there waited for device
  // 0's F0 (a transfer). So six ops are critical and device 0's F1 and BW0 are not. The four
  // transfers are numbered as their consumers start (1.5, 4.5, 5 and 8 ms): the first (F0's
  // activation) and the last (BW1's gradient) are on the path, flows 0 and 3. Each flow's "s" is
  // 1 ns inside its producer's end and its "f" 1 ns inside its consumer's start.
  Schedule s = test::generated("1f1b", 2, 2);
  CostModel c = test::uniform(s, 1, 1, 1);
  c.transfer.fixed_ms = 0.5;
  const SimResult r = simulate(s, c);
  REQUIRE(r.makespan == ms_to_ns(10));
  Json trace = chrome_trace(s, r);
  std::vector<std::string> critical_ops, other_ops, track_ops, track_args;
  std::map<long long, std::vector<std::string>> flows;  // by id: "ph name pid ts" of each event
  std::string track_name;
  for (const Json& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    const int pid = e["pid"];
    if (ph == "M" && e["name"] == "process_name" && pid == 2) track_name = e["args"]["name"];
    if (ph == "X" && pid < 2) {
      const std::string op = std::to_string(pid) + " " + e["name"].get<std::string>();
      const bool critical = e["args"].contains("critical");
      (critical ? critical_ops : other_ops).push_back(op);
      CHECK(critical == e.contains("cname"));
      if (critical) CHECK(e["args"]["critical"] == true);
      if (critical) CHECK(e["cname"] == "terrible");
    }
    if (ph == "X" && pid == 2) {
      track_ops.push_back(e["name"]);
      track_args.push_back(std::to_string(e["args"]["device"].get<int>()) +
                           (e["args"]["after_transfer"].get<bool>() ? "*" : ""));
    }
    if (ph == "s" || ph == "f") {
      flows[e["id"].get<long long>()].push_back(ph + " " + e["name"].get<std::string>() + " " + std::to_string(pid) +
                                                " " + std::to_string(e["ts"].get<double>()));
    }
  }
  CHECK(critical_ops ==
        std::vector<std::string>{"0 F s0 m0", "1 F s1 m0", "1 BW s1 m0", "1 F s1 m1", "1 BW s1 m1", "0 BW s0 m1"});
  CHECK(other_ops == std::vector<std::string>{"0 F s0 m1", "0 BW s0 m0"});
  CHECK(flows.size() == 4);
  CHECK(flows[0] == std::vector<std::string>{"s critical transfer 0 999.999000", "f critical transfer 1 1500.001000"});
  CHECK(flows[1] == std::vector<std::string>{"s transfer 0 1999.999000", "f transfer 1 4500.001000"});
  CHECK(flows[2] == std::vector<std::string>{"s transfer 1 4499.999000", "f transfer 0 5000.001000"});
  CHECK(flows[3] == std::vector<std::string>{"s critical transfer 1 7499.999000", "f critical transfer 0 8000.001000"});
  // The track: the path in order, "*" where the op waited for a transfer.
  CHECK(track_name == "critical path");
  CHECK(track_ops == std::vector<std::string>{"F s0 m0", "F s1 m0", "BW s1 m0", "F s1 m1", "BW s1 m1", "BW s0 m1"});
  CHECK(track_args == std::vector<std::string>{"0", "1*", "1", "1", "1", "0*"});
}
