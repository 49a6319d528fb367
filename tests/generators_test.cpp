#include <doctest/doctest.h>

#include <sstream>

#include "io/json_text.hpp"
#include "io/pytorch_csv.hpp"
#include "model/error.hpp"
#include "model/structure.hpp"
#include "schedules/generator.hpp"
#include "test_support.hpp"
#include "validate/validator.hpp"

using namespace pipeplan;
using pipeplan::test::generated;

namespace {

// One device's list written as in schedules.md: "F0 F1 B0 W0 ...", BW as "BW0"; ops of a
// device's second stage (chunk 1 of ZB-V) in lower case, "f0 b0 w0".
std::string row(const Schedule& s, int device) {
  std::ostringstream out;
  const std::size_t d = static_cast<std::size_t>(device);
  for (const Op& op : s.order[d]) {
    std::string kind(kind_name(op.kind));
    if (op.stage != s.order[d].front().stage) {
      for (char& c : kind) c = static_cast<char>(c - 'A' + 'a');
    }
    out << (out.tellp() > 0 ? " " : "") << kind << op.microbatch;
  }
  return out.str();
}

// The start of the refusal a generator owes for P and M by its registry row (its fewest
// micro-batches, PyTorch's rounds), or "" when it must build. The test below holds the row to
// the "needs" column the README and `pipeplan list` show.
std::string expected_refusal(const Generator& g, int p, int m) {
  const std::string name(g.name);
  const int least = g.min_microbatches.on(p);
  if (m < least) {
    return name + ": needs at least " + g.min_microbatches.text() + " = " + std::to_string(least) +
           " micro-batches for " + std::to_string(p) + " stages, got " + std::to_string(m);
  }
  if (g.pytorch_rounds) {
    // PyTorch's rounds (interleaved without --group): floor(M/P) of them, each of M / rounds
    // micro-batches; M < P is one round.
    const int rounds = std::max(1, m / p);
    if (m % rounds != 0) {
      return name + ": M = " + std::to_string(m) + " micro-batches do not split into " + std::to_string(rounds) +
             " equal rounds";
    }
  }
  return "";
}

}  // namespace

TEST_CASE("every generator over a sweep of P, M and V gives a schedule the validator accepts") {
  for (const Generator& g : generators()) {
    for (int p = 1; p <= 8; ++p) {
      for (int m = 1; m <= 3 * p + 2; ++m) {
        for (int v = 1; v <= 3; ++v) {
          if (g.chunks_for(v) != v) continue;
          CAPTURE(g.name);
          CAPTURE(p);
          CAPTURE(m);
          CAPTURE(v);
          // The cost-aware generators plan with F = B = W = 1 ms and 100 bytes of activations
          // per chunk (25 kept for W); zb gets twice 1F1B's memory.
          GenerateRequest r = test::request(p, m, v);
          CostModel costs = uniform_costs(p * v, p, StageCost{1, 1, 1, 100, 25}, 0.1);
          r.costs = &costs;
          r.memory_limit = {2 * p * v * 100};
          const bool cost_aware = g.uses_costs;
          if (cost_aware && (p > 5 || m > 2 * p + 2)) continue;  // keep the sweep fast; zb_test.cpp has more
          // A generator refuses exactly what its "needs" column (README, pipeplan list) excludes,
          // saying which rule M breaks.
          const std::string refusal = expected_refusal(g, p, m);
          Schedule s;
          std::string why = test::error_of([&] { s = g.generate(r); });
          if (refusal.empty()) {
            CHECK(why == "");
          } else {
            CHECK(why.starts_with(refusal));
          }
          if (!why.empty()) continue;
          CHECK(s.name == g.name);
          CHECK(s.stages == p * v);
          auto problems = validate(s, test::uniform(s, 1, 1, 1), {});
          for (const Problem& problem : problems) FAIL_CHECK(problem.message);
        }
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

TEST_CASE("ZB-V for P = 4, M = 8 follows the rules of schedules.md, applied by hand") {
  // Device 0: 7 F; 4 x [f b w]; the loop [F7 B0 W0][f4 b4 w4], then [B W][f b w] while f lags F;
  // 4 x [B W]. Device 3: F0; 3 x [f F]; [f3 b0 w0]; the loop until F and f reach 8; 3 x [B b];
  // [B7 W4]; the remaining w, then W.
  Schedule s = generated("zbv", 4, 8);
  CHECK(s.placement == std::vector<int>{0, 1, 2, 3, 3, 2, 1, 0});
  CHECK(row(s, 0) ==
        "F0 F1 F2 F3 F4 F5 F6 f0 b0 w0 f1 b1 w1 f2 b2 w2 f3 b3 w3 F7 B0 W0 f4 b4 w4 B1 W1 f5 b5 w5 "
        "B2 W2 f6 b6 w6 B3 W3 f7 b7 w7 B4 W4 B5 W5 B6 W6 B7 W7");
  CHECK(row(s, 3) ==
        "F0 f0 F1 f1 F2 f2 F3 f3 b0 w0 F4 B0 W0 f4 b1 w1 F5 B1 W1 f5 b2 w2 F6 B2 W2 f6 b3 w3 F7 B3 W3 "
        "f7 b4 w4 B4 b5 B5 b6 B6 b7 B7 W4 w5 w6 w7 W5 W6 W7");
}

TEST_CASE("interleaved runs groups of P micro-batches chunk by chunk, backward chunks reversed") {
  // P = 2, V = 2, M = 4, N = 2. Forward table: (m0,c0) (m1,c0) (m0,c1) (m1,c1) (m2,c0) ...;
  // rank 0 warms up with (2-0-1)*2 + (2-1)*2 = 4 forwards, rank 1 with 2. Chunk 1 of rank r is
  // stage 2 + r; the backward starts with chunk 1.
  Schedule i = generated("interleaved", 2, 4);
  auto ops = [&](int device) {
    std::ostringstream out;
    for (const Op& op : i.order[static_cast<std::size_t>(device)]) {
      out << (out.tellp() > 0 ? " " : "") << kind_name(op.kind) << op.stage << "." << op.microbatch;
    }
    return out.str();
  };
  CHECK(ops(0) == "F0.0 F0.1 F2.0 F2.1 F0.2 BW2.0 F0.3 BW2.1 F2.2 BW0.0 F2.3 BW0.1 BW2.2 BW2.3 BW0.2 BW0.3");
  CHECK(ops(1) == "F1.0 F1.1 F3.0 BW3.0 F3.1 BW3.1 F1.2 BW1.0 F1.3 BW1.1 F3.2 BW3.2 F3.3 BW3.3 BW1.2 BW1.3");
}

TEST_CASE("looped BFS and eager 1F1B follow their rules") {
  Schedule b = find_generator("looped-bfs")->generate(test::request(2, 2, 2));
  CHECK(b.order[1] == std::vector<Op>{{OpKind::F, 1, 0},
                                      {OpKind::F, 1, 1},
                                      {OpKind::F, 3, 0},
                                      {OpKind::F, 3, 1},
                                      {OpKind::BW, 3, 1},
                                      {OpKind::BW, 3, 0},
                                      {OpKind::BW, 1, 1},
                                      {OpKind::BW, 1, 0}});
  // Eager 1F1B, P = 3: device 0 warms up with 2*3-1 = 5 forwards, device 2 with 1.
  Schedule e = generated("eager-1f1b", 3, 6);
  CHECK(row(e, 0) == "F0 F1 F2 F3 F4 BW0 F5 BW1 BW2 BW3 BW4 BW5");
  CHECK(row(e, 2) == "F0 BW0 F1 BW1 F2 BW2 F3 BW3 F4 BW4 F5 BW5");
}

TEST_CASE("DualPipeV for P = 4, M = 10 is PyTorch's own DualPipeV file, op for op") {
  Schedule s = generated("dualpipev", 4, 10);
  std::string expected = read_text_file(std::string(PIPEPLAN_TEST_DATA) + "/pytorch/dualpipev_4rank_10mb.csv");
  CHECK(schedule_to_pytorch_csv(s) == expected);
}

TEST_CASE("generators refuse what they cannot build, saying why") {
  auto message = [](const char* name, int p, int m, int v, int group = 0) {
    GenerateRequest r = test::request(p, m, v);
    r.group = group;
    return test::error_of([&] { (void)find_generator(name)->generate(r); });
  };
  CHECK(message("zbh2", 4, 6, 1) == "zbh2: needs at least 2P-1 = 7 micro-batches for 4 stages, got 6");
  CHECK(message("zbh1-paddle", 4, 3, 1) == "zbh1-paddle: needs at least P = 4 micro-batches for 4 stages, got 3");
  CHECK(message("1f1b", 0, 3, 1).find("needs 1 to") != std::string::npos);
  CHECK(message("zbh1", 4, 8, 2).find("runs 1 chunk per device, got 2") != std::string::npos);
  CHECK(message("gpipe", 16384, 1 << 20, 1).find("more than the limit") != std::string::npos);
}

TEST_CASE("each registry row's needs column says what its fields hold") {
  // The column is what people read (README, pipeplan list); the fields are what the generators
  // check. Written by hand from schedules.md: ZB-H2 needs M >= 2P-1, interleaved PyTorch's rounds.
  CHECK(find_generator("zbh2")->min_microbatches.text() == "2P-1");
  CHECK(find_generator("zbh1-paddle")->min_microbatches.text() == "P");
  CHECK(find_generator("dualpipev")->min_microbatches.text() == "2P");
  CHECK(find_generator("gpipe")->min_microbatches.text() == "1");
  CHECK(MicrobatchMinimum{3, 2}.text() == "3P+2");
  for (const Generator& g : generators()) {
    CAPTURE(g.name);
    const std::string_view needs = g.constraints;
    const auto says = [&](const std::string& part) { return needs.find(part) != std::string_view::npos; };
    CHECK(says("M >= " + g.min_microbatches.text()) == (g.min_microbatches.text() != "1" || says("M >= 1")));
    CHECK(says("floor(M/P) | M") == g.pytorch_rounds);
    if (g.max_chunks == 1) {
      CHECK(!says("V "));
    } else if (g.min_chunks == g.max_chunks) {
      CHECK(says("V = " + std::to_string(g.min_chunks)));
    } else {
      CHECK(says("V >= " + std::to_string(g.min_chunks) + " (" + std::to_string(g.default_chunks) + ")"));
    }
    CHECK(says("costs") == g.uses_costs);
    CHECK(says("--memory-limit") == (g.memory_limit == MemoryLimitUse::Required));
  }
}

TEST_CASE("the automatic schedules' candidates: every handcrafted one of a split or fused placement") {
  // zb can never lose to a handcrafted schedule of its placement only if that schedule is among
  // its candidates: a new generator's row names its search. DualPipeV's FB ops are outside the
  // search's model (it plans split B and W); the automatic schedules are not candidates.
  for (const Generator& g : generators()) {
    CAPTURE(g.name);
    const bool expected = !g.uses_costs && g.name != "dualpipev";
    CHECK((g.candidate_of != CandidateOf::None) == expected);
    CHECK((g.candidate_rank > 0) == expected);
  }
  for (CandidateOf search : {CandidateOf::SingleChunk, CandidateOf::Looped, CandidateOf::Vee}) {
    const std::vector<const Generator*> rows = candidates_of(search);
    CHECK(rows.size() >= 3);
    for (std::size_t i = 1; i < rows.size(); ++i) CHECK(rows[i - 1]->candidate_rank < rows[i]->candidate_rank);
  }
  CHECK(candidates_of(CandidateOf::SingleChunk).front()->name == "zbh1");  // of equal ones, the paper's
}

TEST_CASE("unknown generator names get the closest ones") {
  CHECK(find_generator("zbh1") != nullptr);
  CHECK(find_generator("zb-h1") == nullptr);
  auto close = closest_generator_names("zb-h1", 2);
  REQUIRE(!close.empty());
  CHECK(close[0] == "zbh1");
}
