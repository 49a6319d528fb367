// V-Half and V-Min, pinned op for op. Their "move every op left to the earliest free slot that
// keeps dependencies and the peak" step was rewritten from a pass over the device per op to
// segment trees (schedules/range_max_tree.hpp); the schedules must not change. The expected
// values are the output of the earlier implementation (commit 9fb17dc): the full order for
// P = 3, M = 4, and for larger sizes an FNV-1a 64 hash of the same text.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "schedules/range_max_tree.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// Each device's ops as "F0.0 B5.0 ..." (kind, stage, micro-batch), one line per device.
std::string order_text(const Schedule& s) {
  std::string out;
  for (std::size_t d = 0; d < s.order.size(); ++d) {
    if (d > 0) out += '\n';
    for (std::size_t i = 0; i < s.order[d].size(); ++i) {
      const Op& op = s.order[d][i];
      if (i > 0) out += ' ';
      out += std::string(kind_name(op.kind)) + std::to_string(op.stage) + "." + std::to_string(op.microbatch);
    }
  }
  return out;
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

TEST_CASE("V-Half and V-Min for P = 3, M = 4, op for op") {
  CHECK(order_text(test::generated("v-half", 3, 4)) ==
        "F0.0 F0.1 F0.2 F5.0 B5.0 W5.0 F5.1 B5.1 W5.1 F0.3 B0.0 W0.0 F5.2 B5.2 W5.2 B0.1 W0.1 F5.3 B5.3 W5.3 B0.2 W0.2 "
        "B0.3 W0.3\n"
        "F1.0 F1.1 F4.0 F4.1 B4.0 W4.0 F1.2 B4.1 B1.0 W1.0 W4.1 F4.2 F1.3 B1.1 B4.2 W1.1 F4.3 W4.2 B1.2 B4.3 W1.2 W4.3 "
        "B1.3 W1.3\n"
        "F2.0 F3.0 F2.1 F3.1 B3.0 W3.0 B2.0 W2.0 F2.2 F3.2 B3.1 W3.1 B2.1 W2.1 F2.3 F3.3 B3.2 W3.2 B2.2 W2.2 B3.3 W3.3 "
        "B2.3 W2.3");
  CHECK(order_text(test::generated("v-min", 3, 4)) ==
        "F0.0 F0.1 F0.2 F5.0 B5.0 W5.0 F5.1 B5.1 B0.0 W0.0 W5.1 F0.3 F5.2 B5.2 B0.1 W0.1 W5.2 F5.3 B5.3 B0.2 W0.2 W5.3 "
        "B0.3 W0.3\n"
        "F1.0 F1.1 F4.0 B4.0 F4.1 W4.0 B1.0 F1.2 W1.0 B4.1 F4.2 W4.1 B1.1 F1.3 W1.1 B4.2 F4.3 W4.2 B1.2 W1.2 B4.3 W4.3 "
        "B1.3 W1.3\n"
        "F2.0 F3.0 F2.1 F3.1 B3.0 B2.0 W3.0 W2.0 F2.2 F3.2 B3.1 B2.1 W3.1 W2.1 F2.3 F3.3 B3.2 B2.2 W3.2 W2.2 B3.3 B2.3 "
        "W3.3 W2.3");
}

TEST_CASE("V-Half and V-Min at larger sizes hash as before the rewrite") {
  CHECK(fnv1a(order_text(test::generated("v-half", 8, 24))) == 0x7812c70455861ba9ULL);
  CHECK(fnv1a(order_text(test::generated("v-min", 9, 31))) == 0xcd90398a9c716ee8ULL);
  CHECK(fnv1a(order_text(test::generated("v-half", 64, 512))) == 0x7005260d33c54375ULL);
  CHECK(fnv1a(order_text(test::generated("v-min", 64, 512))) == 0x65b53a2d2fabaf47ULL);
}

TEST_CASE("the range tree adds, finds the first and last position at a bound, and the largest value") {
  // Seven positions holding 0 1 2 1 0 3 0, as steps (position, change).
  RangeMaxTree t(7, {{1, 1}, {2, 1}, {3, -1}, {4, -1}, {5, 3}, {6, -3}});
  CHECK(t.max() == 3);
  CHECK(t.last_at_least(0, 5, 1) == 3);  // 0 1 2 1 0: the last >= 1 is at 3
  CHECK(t.first_at_least(0, 5, 2) == 2);
  CHECK(!t.first_at_least(0, 2, 2).has_value());
  t.add(0, 5, 2);  // 2 3 4 3 2 3 0
  CHECK(t.max() == 4);
  CHECK(t.last_at_least(0, 7, 3) == 5);
  CHECK(t.first_at_least(3, 7, 4) == std::nullopt);
  t.add(5, 6, -3);  // 2 3 4 3 2 0 0
  CHECK(t.last_at_least(4, 7, 1) == 4);
  CHECK(t.max() == 4);
  // A flat tree of one value, split by adds where they fall.
  RangeMaxTree flat(1000, 1);
  flat.add(10, 11, -1);
  CHECK(flat.first_at_least(10, 1000, 1) == 11);
  CHECK(flat.last_at_least(0, 11, 1) == 9);
  CHECK(flat.max() == 1);
}
