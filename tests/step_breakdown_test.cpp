// Where the step goes (docs/costs.md, "Where the step goes"): the lines of a piece add up to its
// time, and the lines of a planned row add up to its simulated step.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "estimate/analytic_profile.hpp"
#include "estimate/piece_gemms.hpp"
#include "io/model_config_json.hpp"
#include "io/plan_text.hpp"
#include "model/placement.hpp"
#include "plan/planner.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

ModelConfig tiny_llama() {
  return read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
}

// tiny-llama at 256 tokens a sequence, 16 a step, on `gpus` H100 with `schedules`.
PlanRequest tiny_request(int gpus, std::vector<std::string> schedules) {
  PlanRequest r;
  r.model = tiny_llama();
  r.training.seq = 256;
  r.training.global_batch = 16;
  r.gpu = &gpu_named("h100");
  r.gpus = gpus;
  r.schedules = std::move(schedules);
  r.threads = 2;
  return r;
}

}  // namespace

TEST_CASE("a piece's lines are its F, B and W, and the attention core is its own line") {
  TrainingSettings t;
  t.seq = 256;
  t.tp = 2;
  const ModelConfig m = tiny_llama();
  const GpuSpec& h100 = gpu_named("h100");
  const PieceWork w = layer_work(m, t);
  const PhaseGemms g = layer_linear_gemms(m, t);
  const PieceParts p = piece_parts(w, g, h100, {}, t);
  const StageCost c = piece_cost(w, g, h100, {}, t);
  CHECK(p.f.total() == doctest::Approx(c.f_ms).epsilon(1e-12));
  CHECK(p.b.total() == doctest::Approx(c.b_ms).epsilon(1e-12));
  CHECK(p.w.total() == doctest::Approx(c.w_ms).epsilon(1e-12));
  // The core by hand: Q K^T and P V over 4 heads of 16, 2·256·256·64 each, flash attention's
  // 3 of the 2 x 2 blocks of 128 computed (3/4), over tp 2; at cuDNN's rate at the smallest head
  // dimension and length measured (64 and 512: 225 forward, 266 backward of 989 TFLOP/s, each 5/4
  // per block counted: the figures count 512^2/2 where the kernel computes 10 blocks of 16), of
  // H100's 989.4 TFLOP/s kept at the sustained share of the benchmark's clock, 698.6 / 794.5
  // (gpu_catalog.cpp). The times are some 1e-5 ms: relative comparisons (scale 0), or any two
  // would pass.
  const double core = 2 * (2.0 * 256 * 256 * 64) * 0.75 / 2;
  const double sustained = 698.6 / 794.5;
  CHECK(p.f.attention == doctest::Approx(core / (989.4e12 * 225 / 989 * 5 / 4 * sustained) * 1e3).scale(0));
  // Backward: dQ, dK and the recomputed scores from Q K^T's width, dV and dP from V's.
  CHECK(p.b.attention == doctest::Approx(2.5 * core / (989.4e12 * 266 / 989 * 5 / 4 * sustained) * 1e3).scale(0));
  CHECK(p.w.attention == 0);
  // Tensor parallelism's collectives: 4 a phase, each (t-1)/t of the 256 x 64 bf16 activation
  // at NVLink 4's ring bus bandwidth, 367.6 GB/s measured (gpu_catalog.cpp), with its 0.01 ms.
  const double one = 0.01 + 0.5 * 256 * 64 * 2 / 367.6e9 * 1e3;
  CHECK(p.f.tensor_comm == doctest::Approx(4 * one));
  CHECK(p.b.tensor_comm == doctest::Approx(4 * one));
  CHECK(p.w.tensor_comm == 0);
}

TEST_CASE("a planned row's breakdown adds up to its step, on its busiest device") {
  const PlanOutcome out = plan(tiny_request(8, {"1f1b", "zbh1", "interleaved", "zb", "dualpipev"}));
  REQUIRE(out.rows.size() > 3);
  for (const PlanRow& row : out.rows) {
    CAPTURE(plan_row_title(row));
    REQUIRE(row.breakdown.has_value());
    const StepBreakdown& b = *row.breakdown;
    const double sum =
        b.layers.total() + b.embedding_head_ms + b.overlap_ms + b.idle_ms + b.optimizer_ms + b.data_parallel_ms;
    CHECK(sum == doctest::Approx(row.step_ms).epsilon(1e-9));
    CHECK(b.step_ms == row.step_ms);
    CHECK(b.layers.products > 0);
    CHECK(b.layers.attention > 0);
    CHECK(b.idle_ms >= -1e-6);  // the busiest device cannot be busy for longer than the step
    CHECK(b.overlap_ms <= 0);
    if (row.cp == 1) CHECK(b.layers.context_comm == 0);  // no ring without context parallelism
  }
}

TEST_CASE("precisions searched together give each precision's own best row") {
  // plan --dtype bf16,fp8: the best row of each precision is the best row of a plan of that
  // precision alone (the search is the union of the two).
  PlanRequest r = tiny_request(4, {"1f1b", "zb"});
  const Precision bf16{DType::BF16, std::nullopt}, fp8{DType::BF16, Fp8Recipe::Tensorwise};
  r.precisions = {bf16, fp8};
  const PlanOutcome both = plan(r);
  CHECK(both.precisions);
  for (const Precision& p : {bf16, fp8}) {
    PlanRequest alone = r;
    alone.precisions = {};
    alone.training.dtype = p.dtype;
    alone.training.fp8 = p.fp8;
    const PlanOutcome one = plan(alone);
    REQUIRE(!one.rows.empty());
    const auto best =
        std::find_if(both.rows.begin(), both.rows.end(), [&](const PlanRow& row) { return row.precision == p; });
    REQUIRE(best != both.rows.end());
    CHECK(best->step_ms == one.rows.front().step_ms);
    CHECK(one.rows.front().precision == p);
  }
}
