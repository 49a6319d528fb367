#include <doctest/doctest.h>

#include <sstream>

#include "model/error.hpp"
#include "model/structure.hpp"
#include "schedules/generator.hpp"
#include "test_support.hpp"
#include "validate/validator.hpp"

using namespace pipeplan;
using pipeplan::test::generated;

namespace {

// One device's list written as in schedules.md: "F0 F1 B0 W0 ...", BW as "BW0".
std::string row(const Schedule& s, int device) {
  std::ostringstream out;
  for (const Op& op : s.order[static_cast<std::size_t>(device)]) {
    out << (out.tellp() > 0 ? " " : "") << kind_name(op.kind) << op.microbatch;
  }
  return out.str();
}

}  // namespace

TEST_CASE("every generator over a sweep of P and M gives a schedule the validator accepts") {
  for (const Generator& g : generators()) {
    for (int p = 1; p <= 8; ++p) {
      for (int m = 1; m <= 3 * p + 2; ++m) {
        CAPTURE(g.name);
        CAPTURE(p);
        CAPTURE(m);
        Schedule s;
        try {
          s = g.generate({p, m, 1});
        } catch (const Error& e) {
          // A refusal must say how many micro-batches it needs.
          CHECK(std::string(e.what()).find("needs at least") != std::string::npos);
          continue;
        }
        CHECK(s.name == g.name);
        auto problems = validate(s, test::uniform(s, 1, 1, 1), {});
        for (const Problem& problem : problems) FAIL_CHECK(problem.message);
      }
    }
  }
}

TEST_CASE("ZB-H1 for P = 4, M = 8 matches schedules.md op for op") {
  Schedule s = generated("zbh1", 4, 8);
  CHECK(row(s, 0) == "F0 F1 F2 F3 B0 W0 F4 B1 W1 F5 B2 W2 F6 B3 W3 F7 B4 W4 B5 W5 B6 W6 B7 W7");
  CHECK(row(s, 1) == "F0 F1 F2 B0 F3 B1 W0 F4 B2 W1 F5 B3 W2 F6 B4 W3 F7 B5 W4 B6 W5 B7 W6 W7");
  CHECK(row(s, 2) == "F0 F1 B0 F2 B1 F3 B2 W0 F4 B3 W1 F5 B4 W2 F6 B5 W3 F7 B6 W4 B7 W5 W6 W7");
  CHECK(row(s, 3) == "F0 B0 F1 B1 F2 B2 F3 B3 W0 F4 B4 W1 F5 B5 W2 F6 B6 W3 F7 B7 W4 W5 W6 W7");
}

TEST_CASE("1F1B and GPipe follow their rules") {
  // 1F1B, device d of P = 3: min(P-1-d, M) warm-up F, then [F, BW] pairs, then the rest BW.
  Schedule s = generated("1f1b", 3, 4);
  CHECK(row(s, 0) == "F0 F1 F2 BW0 F3 BW1 BW2 BW3");
  CHECK(row(s, 1) == "F0 F1 BW0 F2 BW1 F3 BW2 BW3");
  CHECK(row(s, 2) == "F0 BW0 F1 BW1 F2 BW2 F3 BW3");
  Schedule g = generated("gpipe", 2, 3);
  CHECK(row(g, 1) == "F0 F1 F2 BW0 BW1 BW2");
}

TEST_CASE("ZB-H2 warms up with 2(P-1-d) forwards and lags each W by 2d") {
  Schedule s = generated("zbh2", 3, 5);
  CHECK(row(s, 0) == "F0 F1 F2 F3 F4 B0 W0 B1 W1 B2 W2 B3 W3 B4 W4");
  CHECK(row(s, 1) == "F0 F1 F2 B0 F3 B1 F4 B2 W0 B3 W1 B4 W2 W3 W4");
  CHECK(row(s, 2) == "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 W0 W1 W2 W3 W4");
}

TEST_CASE("the seed's ZB-H1 order, step by step from seed-paddle-zbh1.md") {
  // P = 4, M = 6. Device 0: 4 F; no split; 2 x [BW, F]; 3 BW; last BW.
  // Device 2: 2 F; 2 x [B, F]; 2 x [BW, F]; 1 BW; B5 W5; W0 W1.
  Schedule s = generated("zbh1-paddle", 4, 6);
  CHECK(row(s, 0) == "F0 F1 F2 F3 BW0 F4 BW1 F5 BW2 BW3 BW4 BW5");
  CHECK(row(s, 2) == "F0 F1 B0 F2 B1 F3 BW2 F4 BW3 F5 BW4 B5 W5 W0 W1");
  CHECK(row(s, 3) == "F0 B0 F1 B1 F2 B2 F3 BW3 F4 BW4 F5 B5 W5 W0 W1 W2");
}

TEST_CASE("generators refuse what they cannot build, saying why") {
  auto message = [](const char* name, GenerateRequest r) {
    return test::error_of([&] { (void)find_generator(name)->generate(r); });
  };
  CHECK(message("zbh2", {4, 6, 1}) == "zbh2: needs at least 2P-1 = 7 micro-batches for 4 stages, got 6");
  CHECK(message("zbh1-paddle", {4, 3, 1}) == "zbh1-paddle: needs at least P = 4 micro-batches for 4 stages, got 3");
  CHECK(message("1f1b", {0, 3, 1}).find("needs 1 to") != std::string::npos);
  CHECK(message("zbh1", {4, 8, 2}).find("one chunk per device") != std::string::npos);
  CHECK(message("gpipe", {16384, 1 << 20, 1}).find("more than the limit") != std::string::npos);
}

TEST_CASE("unknown generator names get the closest ones") {
  CHECK(find_generator("zbh1") != nullptr);
  CHECK(find_generator("zb-h1") == nullptr);
  auto close = closest_generator_names("zb-h1", 2);
  REQUIRE(!close.empty());
  CHECK(close[0] == "zbh1");
}
