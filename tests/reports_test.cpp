#include <doctest/doctest.h>

#include "io/json_fields.hpp"
#include "io/reports.hpp"
#include "io/result_json.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("the result document carries the contract's keys and the simulated numbers") {
  Schedule s = test::generated("1f1b", 2, 2);
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1, 8, 2));
  Json j = result_to_json(s, r);
  CHECK(j["format"] == "pipeplan.result");
  CHECK(j["schema_version"] == 1);
  CHECK(j["makespan_ms"] == 9.0);                                        // (M + P - 1)(F + B + W) = 3 * 3
  CHECK(j["bubble_rate"].get<double>() == doctest::Approx(6.0 / 18.0));  // each device idle 3 of 9
  REQUIRE(j["devices"].size() == 2);
  CHECK(j["devices"][0]["busy_ms"] == 6.0);
  CHECK(j["devices"][0]["idle_ms"] == 3.0);
  CHECK(j["devices"][0]["peak_memory_bytes"] == 16);
  REQUIRE(j["ops"].size() == 8);
  CHECK(j["ops"][0] == Json::parse(R"({"device": 0, "iteration": 0, "kind": "F", "stage": 0, "microbatch": 0,
                                        "start_ms": 0.0, "end_ms": 1.0})"));
}

TEST_CASE("the comparison gives each row its ratio to the first") {
  Schedule a = test::generated("1f1b", 4, 8), b = test::generated("zbh1", 4, 8);
  std::vector<ComparisonRow> rows;
  rows.push_back({"1f1b", simulate(a, test::uniform(a, 1, 1, 1)), std::nullopt});
  rows.push_back({"zbh1", simulate(b, test::uniform(b, 1, 1, 1)), false});
  Json j = comparison_to_json(rows);
  // 1F1B 33 units, ZB-H1 27 units (the formulas in simulator_test.cpp).
  CHECK(j["rows"][1]["ratio_to_first"].get<double>() == doctest::Approx(27.0 / 33.0));
  CHECK(comparison_text(rows).find("0.818") != std::string::npos);
  // A row over the memory limit says so, in the text and in the JSON; one without a limit does not.
  CHECK(comparison_text(rows).find("over the memory limit\n") != std::string::npos);
  CHECK(j["rows"][1]["within_memory_limit"] == false);
  CHECK_FALSE(j["rows"][0].contains("within_memory_limit"));
}

TEST_CASE("a validation report says valid, or lists each problem with its kind") {
  Schedule s = test::generated("gpipe", 1, 1);
  CHECK(validation_text(s, {}) == "valid: gpipe: 1 devices, 1 stages, 1 micro-batches, 2 ops\n");
  std::vector<Problem> p = {{ProblemKind::Missing, 0, "missing F(s0,m0)"}};
  CHECK(validation_text(s, p).find("  [missing] missing F(s0,m0)\n") != std::string::npos);
  CHECK(validation_to_json(s, p)["valid"] == false);
}

TEST_CASE("a result file reads back into the same run") {
  Schedule s = test::generated("zbv", 3, 6);
  CostModel c = test::uniform(s, 1.25, 1.5, 0.75, 100, 30);
  c.transfer.fixed_ms = 0.125;
  for (DeviceCost& d : c.devices) d.optimizer_ms = 0.5;
  SimResult r = simulate(s, c, {2, OptimizerMode::PostValidation});
  LoadedResult back = result_from_json(parse_json(to_json_text(result_to_json(s, r)), "r.json"), "r.json");
  CHECK(back.schedule.placement == s.placement);
  CHECK(back.schedule.order == s.order);
  CHECK(back.result.makespan == r.makespan);
  CHECK(back.result.step_time() == r.step_time());
  CHECK(back.result.span_bubble_rate() == r.span_bubble_rate());
  CHECK(back.result.lower_bound == r.lower_bound);
  for (std::size_t d = 0; d < 3; ++d) {
    CHECK(back.result.devices[d].peak_memory == r.devices[d].peak_memory);
    CHECK(back.result.devices[d].memory.size() == r.devices[d].memory.size());
    CHECK(back.result.devices[d].ops.size() == r.devices[d].ops.size());
  }
}

TEST_CASE("a broken result file names its field") {
  Schedule s = test::generated("1f1b", 2, 2);
  Json j = result_to_json(s, simulate(s, test::uniform(s, 1, 1, 1)));
  j["ops"][3]["kind"] = "Z";
  CHECK(test::error_of([&] { (void)result_from_json(j, "r.json"); }) ==
        "r.json: ops[3].kind: expected one of \"F\", \"B\", \"W\", \"BW\", \"FB\", got \"Z\"");
}
