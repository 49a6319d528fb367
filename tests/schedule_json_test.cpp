#include <doctest/doctest.h>

#include "io/schedule_json.hpp"
#include "lower/lowering.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

std::string error_for(const std::string& body) {
  std::string text = R"({"format": "pipeplan.schedule", "schema_version": 1, )" + body + "}";
  return test::error_of([&] { (void)schedule_from_json(parse_json(text, "s.json"), "s.json"); });
}

}  // namespace

TEST_CASE("a generated schedule round-trips through its file format") {
  Schedule s = test::generated("zbh1-paddle", 4, 6);
  Schedule back = schedule_from_json(parse_json(to_json_text(schedule_to_json(s)), "mem"), "mem");
  CHECK(back.name == s.name);
  CHECK(back.devices == 4);
  CHECK(back.placement == s.placement);
  CHECK(back.order == s.order);
}

TEST_CASE("bad schedules name the field and what was expected") {
  CHECK(error_for(R"("devices": 0, "stages": 1, "microbatches": 1, "placement": [0], "order": [[]])") ==
        "s.json: devices: expected an integer from 1 to 16384, got 0");
  CHECK(error_for(R"("devices": 1, "stages": 1, "microbatches": 1, "placement": [0, 0], "order": [[]])") ==
        "s.json: placement: expected one device per stage (1 entries), got \"2 entries\"");
  CHECK(error_for(R"("devices": 1, "stages": 1, "microbatches": 1, "placement": [0],
                     "order": [[{"kind": "X", "stage": 0, "microbatch": 0}]])") ==
        "s.json: order[0][0].kind: expected one of \"F\", \"B\", \"W\", \"BW\", \"FB\", \"SEND_F\", \"RECV_F\", "
        "\"SEND_B\", \"RECV_B\", got \"X\"");
  CHECK(error_for(R"("devices": 1, "stages": 1, "microbatches": 1, "placement": [0],
                     "order": [[{"kind": "F", "stage": 0, "microbatch": 1.5}]])") ==
        "s.json: order[0][0].microbatch: expected an integer from 0 to 0, got 1.5");
  CHECK(error_for(R"("devices": 1, "stages": 1, "placement": [0], "order": [[]])") ==
        "s.json: microbatches: missing; this field is required");
  CHECK(error_for(R"("devices": 2, "stages": 1, "microbatches": 1, "placement": [0], "order": [[]])") ==
        "s.json: order: expected one list of ops per device (2 lists), got \"1 lists\"");
  CHECK(error_for(R"("devices": 1, "stages": 1000000, "microbatches": 1000000, "placement": [], "order": [])")
            .find("more than the limit") != std::string::npos);
}

TEST_CASE("a lowered schedule writes its sends and receives and reads back the same") {
  const LoweredSchedule l = lower(test::generated("1f1b", 2, 2), LowerPolicy::Batched);
  const Json j = lowered_to_json(l);
  CHECK(j["lowering"] == "batched");
  CHECK(j["order"][1][3] == Json::parse(R"({"kind": "SEND_B", "stage": 1, "microbatch": 0})"));
  CHECK(j["order"][1][4] == Json::parse(R"({"kind": "RECV_F", "stage": 1, "microbatch": 1, "batched": true})"));
  const LoweredSchedule back = lowered_from_json(parse_json(to_json_text(j), "l.json"), "l.json");
  CHECK(back.policy == "batched");
  test::check_same_lowering(back, l);
  // The plain reader keeps the compute ops alone.
  CHECK(schedule_from_json(parse_json(to_json_text(j), "l.json"), "l.json").order == l.schedule.order);
}
