#include <doctest/doctest.h>

#include "io/profile_json.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

std::string error_for(const std::string& text) {
  return test::error_of([&] { (void)profile_from_json(parse_json(text, "p.json"), "p.json"); });
}

const char* kHeader = R"("format": "pipeplan.profile", "schema_version": 1, )";

}  // namespace

TEST_CASE("a profile with every field reads back what it says") {
  std::string text = std::string("{") + kHeader + R"(
    "stages": [{"f_ms": 1.5, "b_ms": 2, "w_ms": 1, "activation_bytes": "1GiB", "w_activation_bytes": 1000}],
    "devices": [{"static_memory_bytes": 5e9, "optimizer_ms": 3}],
    "transfer": {"latency_ms": 0.02, "bandwidth_gb_per_s": 10, "bytes": 33554432}})";
  CostModel c = profile_from_json(parse_json(text, "p.json"), "p.json");
  REQUIRE(c.stages.size() == 1);
  CHECK(c.stages[0].f_ms == 1.5);
  CHECK(c.stages[0].activation_bytes == 1073741824);
  CHECK(c.devices[0].static_memory_bytes == 5'000'000'000);
  // 0.02 ms + 33554432 B / 10 GB/s = 0.02 + 3.3554432 ms.
  CHECK(c.transfer.ms() == doctest::Approx(3.3754432));
}

TEST_CASE("a profile round-trips through its writer") {
  CostModel c = uniform_costs(3, 3, StageCost{1.25, 2.5, 0.5, 4096, 1024}, 0.125);
  c.devices[1].static_memory_bytes = 77;
  CostModel back = profile_from_json(profile_to_json(c), "mem");
  CHECK(back.stages[2].b_ms == 2.5);
  CHECK(back.stages[2].w_activation_bytes == 1024);
  CHECK(back.devices[1].static_memory_bytes == 77);
  CHECK(back.transfer.ms() == 0.125);
}

TEST_CASE("bad profiles name the field and what was expected") {
  CHECK(error_for(R"({"format": "pipeplan.schedule", "schema_version": 1})") ==
        "p.json: format: expected \"pipeplan.profile\", got \"pipeplan.schedule\"");
  CHECK(error_for(std::string("{") + kHeader + R"("stages": [{"f_ms": 1, "b_ms": 1}]})") ==
        "p.json: stages[0].w_ms: missing; this field is required");
  CHECK(error_for(std::string("{") + kHeader + R"("stages": [{"f_ms": -1, "b_ms": 1, "w_ms": 1}]})") ==
        "p.json: stages[0].f_ms: expected a non-negative number of milliseconds, got -1");
  CHECK(error_for(std::string("{") + kHeader + R"("stages": [{"f_ms": "fast", "b_ms": 1, "w_ms": 1}]})") ==
        "p.json: stages[0].f_ms: expected a non-negative number of milliseconds, got \"fast\"");
  CHECK(error_for(std::string("{") + kHeader + R"("stages": []})") ==
        "p.json: stages: expected at least one stage, got []");
  CHECK(error_for(std::string("{") + kHeader +
                  R"("stages": [{"f_ms": 1, "b_ms": 1, "w_ms": 1, "activation_bytes": 1, "w_activation_bytes": 2}]})")
            .find("w_activation_bytes: 2 exceeds activation_bytes") != std::string::npos);
  CHECK(
      error_for(
          std::string("{") + kHeader +
          R"("stages": [{"f_ms": 1, "b_ms": 1, "w_ms": 1}], "transfer": {"latency_ms": 1, "bandwidth_gb_per_s": 0, "bytes": 1}})") ==
      "p.json: transfer.bandwidth_gb_per_s: expected a number above zero, got 0");
  CHECK(error_for(R"({"format": "pipeplan.profile", "schema_version": 2, "stages": []})")
            .find("newer than this pipeplan reads") != std::string::npos);
}
