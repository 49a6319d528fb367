#include <doctest/doctest.h>

#include "io/json_text.hpp"
#include "io/schedule_json.hpp"
#include "io/schedule_text.hpp"
#include "lower/lowering.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// What the document reader makes of `text`.
LoweredSchedule by_document(const std::string& text) {
  return lowered_from_json(parse_json(text, "s.json"), "s.json");
}

}  // namespace

TEST_CASE("the fast writer gives the document writer's bytes") {
  for (const char* name : {"gpipe", "zbh1", "interleaved", "zbv", "dualpipev"}) {
    Schedule s = test::generated(name, 3, 6);
    CHECK(schedule_json_text(s) == to_json_text(schedule_to_json(s)));
    const LoweredSchedule l = lower(s, LowerPolicy::Batched);
    CHECK(lowered_json_text(l) == to_json_text(lowered_to_json(l)));
  }
  Schedule odd = test::generated("1f1b", 2, 2);
  odd.name = "quote \" and \\ and \xc3\xa9";  // escapes and UTF-8
  odd.order[1].clear();                       // an empty device list stays on one line
  CHECK(schedule_json_text(odd) == to_json_text(schedule_to_json(odd)));
  odd.order.clear();
  CHECK(schedule_json_text(odd) == to_json_text(schedule_to_json(odd)));
}

TEST_CASE("the scanner reads what the document reader reads") {
  for (const char* name : {"1f1b", "zbh2", "looped-bfs", "v-min", "dualpipev"}) {
    const Schedule s = test::generated(name, 4, 8);
    const std::string plain = schedule_json_text(s);
    std::optional<LoweredSchedule> fast = scan_schedule_text(plain);
    REQUIRE(fast);
    test::check_same_lowering(*fast, by_document(plain));
    const std::string lowered = lowered_json_text(lower(s, LowerPolicy::Timed));
    fast = scan_schedule_text(lowered);
    REQUIRE(fast);
    test::check_same_lowering(*fast, by_document(lowered));
  }
}

TEST_CASE("anything outside the fast path goes to the document reader") {
  const std::string good = schedule_json_text(test::generated("1f1b", 2, 2));
  REQUIRE(scan_schedule_text(good));
  const auto changed = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return scan_schedule_text(text).has_value();
  };
  CHECK_FALSE(changed("\"name\": \"1f1b\"", "\"name\": \"1f\\u0031b\""));  // an escape
  CHECK_FALSE(changed("\"schema_version\": 1", "\"schema_version\": 1.0"));
  CHECK_FALSE(changed("\"schema_version\": 1", "\"schema_version\": 2"));
  CHECK_FALSE(changed("\"stage\": 1, \"microbatch\": 0}", "\"stage\": 01, \"microbatch\": 0}"));  // a leading zero
  CHECK_FALSE(changed("\"stage\": 1, \"microbatch\": 0}", "\"stage\": 2, \"microbatch\": 0}"));   // out of range
  CHECK_FALSE(changed("\"microbatch\": 0}", "\"microbatch\": 0, \"note\": 1}"));                  // an unknown key
  CHECK_FALSE(changed("\"kind\": \"F\"", "\"kind\": \"X\""));
  CHECK_FALSE(changed("\"placement\": [0, 1]", "\"placement\": [0]"));
  CHECK_FALSE(changed("\"format\": \"pipeplan.schedule\"", "\"format\": \"pipeplan.result\""));
  CHECK_FALSE(scan_schedule_text(good + "x"));
  CHECK_FALSE(scan_schedule_text(good.substr(0, good.size() / 2)));
}
