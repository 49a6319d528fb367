// Megatron-Core's expert all-to-all overlap (schedules/expert_overlap_pairs.hpp): each fused
// backward a device's order follows with a forward becomes one FB op, timed by the pair's rule
// (moe_work.hpp), the schedule still valid.
#include <doctest/doctest.h>

#include <string>

#include "estimate/moe_work.hpp"
#include "schedules/expert_overlap_pairs.hpp"
#include "schedules/generator.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"
#include "validate/validator.hpp"

using namespace pipeplan;
using pipeplan::test::generated;

namespace {

std::string listing(const Schedule& s, int device) {
  std::string out;
  for (const Op& op : s.order[static_cast<std::size_t>(device)]) out += (out.empty() ? "" : " ") + describe(op);
  return out;
}

}  // namespace

TEST_CASE("one stage: each backward runs beside the next micro-batch's forward") {
  // 1F1B at pp 1 is F0 BW0 F1 BW1 ...: Megatron's combined 1F1B runs F0, then F1 beside BW0, and so on.
  const Schedule paired = pair_backwards_with_next_forwards(generated("1f1b", 1, 4));
  CHECK(listing(paired, 0) == "F(s0,m0) FB(s0,m1 & s0,m0) FB(s0,m2 & s0,m1) FB(s0,m3 & s0,m2) BW(s0,m3)");
}

TEST_CASE("1F1B and interleaved 1F1B stay valid paired, and a cheaper pair shortens the step") {
  struct Case {
    const char* name;
    int devices, microbatches;
  };
  for (const Case& c :
       {Case{"1f1b", 1, 3}, Case{"1f1b", 1, 8}, Case{"interleaved", 2, 8}, Case{"interleaved", 4, 16}}) {
    const std::string name = c.name;
    CAPTURE(name);
    GenerateRequest r = test::request(c.devices, c.microbatches, name == "interleaved" ? 2 : 1);
    const Schedule plain = find_generator(name)->generate(r);
    const Schedule paired = pair_backwards_with_next_forwards(plain);
    CHECK(paired.op_count() < plain.op_count());
    CostModel costs = test::uniform(plain, 1, 1, 1);
    for (const Problem& p : validate(paired, costs, {})) FAIL_CHECK(p.message);
    // Without a pair time the FB op costs its two parts; with F 1 and BW 2 beside each other in
    // 2.5 the paired schedule is shorter.
    const SimTime unpaired = simulate(plain, costs, {}).step_time();
    CHECK(simulate(paired, costs, {}).step_time() >= unpaired);
    for (StageCost& stage : costs.stages) stage.f_and_b_ms = 2.5;
    CHECK(simulate(paired, costs, {}).step_time() < unpaired);
  }
}

TEST_CASE("1F1B over several stages without virtual ones loses by the pairing, which Megatron refuses") {
  // A pair gives its forward's output at its end: down a pipeline of one stage per device each
  // hop waits a pair, and the cheaper pair does not pay for it (transformer_config.py asks for
  // virtual stages when pp > 1).
  const Schedule plain = generated("1f1b", 4, 8);
  CostModel costs = test::uniform(plain, 1, 1, 1);
  const SimTime unpaired = simulate(plain, costs, {}).step_time();
  for (StageCost& c : costs.stages) c.f_and_b_ms = 2.5;
  CHECK(simulate(pair_backwards_with_next_forwards(plain), costs, {}).step_time() > unpaired);
}

TEST_CASE("split backwards stay: Megatron's pairing takes fused backwards only") {
  const Schedule zb = generated("zbh1", 2, 4);
  const Schedule paired = pair_backwards_with_next_forwards(zb);
  CHECK(paired.op_count() == zb.op_count());
}

TEST_CASE("the all-to-alls' SMs slow the compute beside them") {
  StageCost f, bw;
  f.f_ms = 3;   // 1 of it all-to-all
  bw.b_ms = 4;  // 1.5 of it all-to-all
  bw.w_ms = 2;
  // Compute 6.5, all-to-alls 2.5; with 0.2 of the SMs theirs, the compute loses 0.2 of the 2.5
  // they share: 6.5 + 0.5 = 7.
  CHECK(*overlapped_f_and_b_ms(f, {1, 0}, bw, {0, 1.5}, 0.2) == doctest::Approx(7.0));
  // All-to-alls 8 against compute 1: slowed, the compute takes 1 / 0.8 = 1.25 of them, still
  // inside the 8.
  CHECK(*overlapped_f_and_b_ms(f, {2.5, 0}, bw, {0, 5.5}, 0.2) == doctest::Approx(8.0));
  // All the SMs: nothing overlaps, the two parts add (6.5 + 2.5).
  CHECK(*overlapped_f_and_b_ms(f, {1, 0}, bw, {0, 1.5}, 1.0) == doctest::Approx(9.0));
}
