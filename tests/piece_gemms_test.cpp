#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/piece_gemms.hpp"
#include "estimate/piece_work.hpp"
#include "io/model_config_json.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// tiny-llama: h = 64, 4 heads, 2 key-value heads (hk = 32), f = 128, V = 100; s = 16, b = 2.
ModelConfig tiny_llama() {
  return read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
}

TrainingSettings tiny_training() {
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  return t;
}

double flops(const std::vector<GemmShape>& gemms) {
  double sum = 0;
  for (const GemmShape& g : gemms) sum += g.flops();
  return sum;
}

}  // namespace

TEST_CASE("a layer's linear products: forward, input gradient, weight gradient") {
  TrainingSettings t = tiny_training();
  t.tp = 2;
  const PhaseGemms g = layer_linear_gemms(tiny_llama(), t, {});
  REQUIRE(g.f.size() == 4);
  // QKV over T = 32 tokens, h = 64 in, (h + 2hk) / t = 64 out: F 32 x 64 x 64; B (dX = dY W)
  // 32 x 64 x 64; W (dW = dY^T X) 64 x 64 x 32, accumulated in fp32.
  CHECK((g.f[0].m == 32 && g.f[0].n == 64 && g.f[0].k == 64));
  CHECK((g.w[0].m == 64 && g.w[0].n == 64 && g.w[0].k == 32 && g.w[0].accumulates_fp32));
  CHECK(!g.b[0].accumulates_fp32);
  // The down projection, row-parallel: in f / t = 64, out h = 64; its input gradient is
  // T x (f/t) x h, its weight gradient h x (f/t) x T.
  CHECK((g.b[3].m == 32 && g.b[3].n == 64 && g.b[3].k == 64));
  CHECK((g.f[2].n == 128 && g.f[2].k == 64));  // gate and up together: 2f / t = 128
  // Each phase's products are the linear FLOPs piece_work counts: 2359296 / t (its test).
  CHECK(flops(g.f) == 2'359'296.0 / 2);
  CHECK(flops(g.b) == 2'359'296.0 / 2);
  CHECK(flops(g.w) == 2'359'296.0 / 2);
  const PieceWork w = layer_work(tiny_llama(), t);
  CHECK(w.w_flops == flops(g.w));
}

TEST_CASE("full recompute runs the forward's and the weight gradient's products in B") {
  TrainingSettings t = tiny_training();
  t.recompute = Recompute::Full;
  const PhaseGemms g = layer_linear_gemms(tiny_llama(), t, {});
  CHECK(g.b.size() == 12);
  CHECK(g.w.empty());
  CHECK(flops(g.b) == 3 * 2'359'296.0);
  const PhaseGemms head = head_linear_gemms(tiny_llama(), t);  // the head recomputes nothing
  CHECK(flops(head.b) == 2 * 2.0 * 32 * 64 * 100);
  CHECK(head.w.empty());
}

TEST_CASE("the listed products are priced by shape, the rest of a phase at the large-product rate") {
  // 100 TFLOP/s, 1000 GB/s, 4 SMs, both efficiencies 0.5.
  const GpuSpec gpu{
      "round", "test card", 100.0, 100.0, 10.0, Bytes{1} << 34, 1000.0, 8, {"link", 50.0, 0.01}, {"net", 10.0, 0.05},
      4};
  PieceWork w;
  // One product of 5 tiles over the measured K, and 1e9 FLOPs of attention core.
  w.f_flops = 2.0 * 128 * 640 * kMeasuredK + 1e9;
  PhaseGemms g;
  g.f.push_back({128, 640, kMeasuredK});
  const StageCost c = piece_cost(w, g, gpu, {0.5, 0.5}, TrainingSettings{});
  // The product takes 2 waves on 4 SMs (gemm_efficiency_test): 2 * 4 * 2 * 128^2 * 16384 / 5e13
  // s; the core 1e9 / 5e13 s.
  CHECK(c.f_ms == doctest::Approx((2 * 4 * 2.0 * 128 * 128 * 16384 + 1e9) / 5e13 * 1e3));
  CHECK(piece_cost(w, gpu, {0.5, 0.5}, TrainingSettings{}).f_ms == doctest::Approx(w.f_flops / 5e13 * 1e3));
}

TEST_CASE("a mixture of experts' layer lists its routed experts as grouped products of their balanced rows") {
  // Mixtral 8x7B (h 4096, 8 experts of 14336, top 2) at seq 4096 with ep 2: each rank holds 4
  // experts and, balanced, sees 4096 x 2 routed rows, 2048 an expert. Gate and up as one 2 x 14336
  // wide product, then down, each a batch of 4 (Megatron's grouped GEMM).
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/mixtral-8x7b.json");
  TrainingSettings t;
  t.seq = 4096;
  t.ep = 2;
  const PhaseGemms g = layer_linear_gemms(m, t, layer_kind(m, 0));
  const GemmShape& up = g.f[g.f.size() - 2];
  const GemmShape& down = g.f.back();
  CHECK((up.m == 2048 && up.n == 2 * 14336 && up.k == 4096 && up.batch == 4));
  CHECK((down.m == 2048 && down.n == 4096 && down.k == 14336 && down.batch == 4));
  // Their FLOPs are moe_work's routed ones in each phase: 2 x 8192 rows x 4096 x (2 + 1) x 14336.
  CHECK(up.flops() + down.flops() == doctest::Approx(6.0 * 8192 * 4096 * 14336));
  // W accumulates each expert's gradient in fp32 over its 2048 rows. tp 2 with etp 2 halves a
  // rank's tokens (sequence parallelism) and the experts' widths, and etp gathers both ranks'
  // rows: 2048 an expert again, at half the FLOPs.
  CHECK((g.w.back().k == 2048 && g.w.back().accumulates_fp32 && g.w.back().batch == 4));
  t.tp = 2;
  t.etp = 2;
  const PhaseGemms split = layer_linear_gemms(m, t, layer_kind(m, 0));
  CHECK((split.f.back().m == 2048 && split.f.back().k == 14336 / 2));
  CHECK(split.f.back().flops() == doctest::Approx(down.flops() / 2));
}

TEST_CASE("checkpointing by op runs wk's, wo's and w3's products again in B, and W inside it") {
  TrainingSettings t = tiny_training();
  t.recompute = Recompute::Ops;
  const PhaseGemms g = layer_linear_gemms(tiny_llama(), t, {});
  // B: the four input gradients, then wk (32 x 32 x 64), wo (32 x 64 x 64), w3 (32 x 128 x 64),
  // then W's four.
  REQUIRE(g.b.size() == 4 + 3 + 4);
  CHECK((g.b[4].m == 32 && g.b[4].n == 32 && g.b[4].k == 64));
  CHECK((g.b[5].n == 64 && g.b[5].k == 64));
  CHECK((g.b[6].n == 128 && g.b[6].k == 64));
  CHECK(g.w.empty());
  const PieceWork w = layer_work(tiny_llama(), t);
  CHECK(flops(g.b) == doctest::Approx(w.b_flops - w.b_core_flops));  // the products are B's linear FLOPs
}
