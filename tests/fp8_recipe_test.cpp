#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/fp8_recipe.hpp"
#include "estimate/gemm_efficiency.hpp"
#include "estimate/piece_gemms.hpp"
#include "estimate/piece_work.hpp"
#include "io/model_config_json.hpp"
#include "model/error.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// 100 TFLOP/s bf16, 200 FP8, 1000 GB/s, 4 SMs, Hopper; both efficiencies 0.5: a large product
// runs at 5e13 FLOP/s in bf16, 1e14 in FP8, memory at 5e11 B/s.
GpuSpec round_fp8_gpu(Architecture architecture) {
  GpuSpec g{
      "round", "test card", 100.0, 100.0, 10.0, Bytes{1} << 34, 1000.0, 8, {"link", 50.0, 0.01}, {"net", 10.0, 0.05},
      4};
  g.tflops_fp8 = 200.0;
  g.architecture = architecture;
  return g;
}
constexpr Efficiency kHalf{0.5, 0.5};

// tiny-llama: h = 64, 4 heads, 2 key-value heads (hk = 32), f = 128; s = 16, b = 2: T = 32.
ModelConfig tiny_llama() {
  return read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
}
TrainingSettings tiny_fp8(Fp8Recipe recipe) {
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  t.fp8 = recipe;
  return t;
}

}  // namespace

TEST_CASE("an FP8 product runs at the FP8 peak and reads one byte an input element") {
  // One full wave of 2 x 2 tiles on 4 SMs over the measured K (gemm_efficiency_test).
  GemmShape g{256, 256, kMeasuredK};
  g.fp8 = true;
  // 2 * 256 * 256 * 16384 = 2147483648 FLOPs at 2e14 * 0.5: 0.0214748 ms. Its bytes, A and B in
  // FP8 and C written in bf16: 256*16384 + 16384*256 + 2*256*256 = 8519680, 0.0170394 ms at
  // 5e11 B/s: compute-bound, half the bf16 product's 0.0429497 ms.
  CHECK(g.bytes(DType::BF16) == 8519680.0);
  CHECK(gemm_ms(g, round_fp8_gpu(Architecture::Hopper), kHalf, DType::BF16) ==
        doctest::Approx(2147483648.0 / 1e14 * 1e3));
  // 256*64*2 + 2*256*256 = 163840 bytes: 3.2768e-4 ms against 8.4e-5 of FLOPs (on a card without
  // an SM count, whose tiles' fixed time is not modelled: the roofline alone).
  GemmShape thin{256, 256, 64};
  thin.fp8 = true;
  GpuSpec no_sms = round_fp8_gpu(Architecture::Hopper);
  no_sms.sms = 0;
  CHECK(gemm_ms(thin, no_sms, kHalf, DType::BF16) == doctest::Approx(163840.0 / 5e11 * 1e3).scale(0));
  GpuSpec ampere = round_fp8_gpu(Architecture::Ampere);
  ampere.tflops_fp8 = 0;
  CHECK_THROWS_AS((void)gemm_ms(g, ampere, kHalf, DType::BF16), Error);
}

TEST_CASE("MXFP8's block-scaled products run at its measured share of the per-tensor rate on Blackwell") {
  // Transformer Engine's pre-quantized GEMM benchmark on a B300: 6.812 ms per-tensor, 7.161
  // MXFP8, for the same 12 products.
  CHECK(fp8_gemm_rate(Fp8Recipe::Mxfp8, Architecture::Blackwell) == doctest::Approx(6.812 / 7.161));
  CHECK(fp8_gemm_rate(Fp8Recipe::Tensorwise, Architecture::Blackwell) == 1.0);
  CHECK(fp8_gemm_rate(Fp8Recipe::Blockwise, Architecture::Hopper) == 1.0);
  // The compute-bound product above, 0.0214748 ms per-tensor, takes 7.161 / 6.812 of it.
  GemmShape g{256, 256, kMeasuredK};
  g.fp8 = true;
  g.fp8_rate = fp8_gemm_rate(Fp8Recipe::Mxfp8, Architecture::Blackwell);
  CHECK(gemm_ms(g, round_fp8_gpu(Architecture::Blackwell), kHalf, DType::BF16) ==
        doctest::Approx(2147483648.0 / 1e14 * 1e3 * 7.161 / 6.812));
  // apply_fp8 gives every product of a layer its recipe's rate.
  const TrainingSettings mx = tiny_fp8(Fp8Recipe::Mxfp8);
  PieceWork w = layer_work(tiny_llama(), mx);
  PhaseGemms gemms = layer_linear_gemms(tiny_llama(), mx, {});
  apply_fp8(w, gemms, mx, round_fp8_gpu(Architecture::Blackwell));
  for (const GemmShape& p : gemms.b) CHECK(p.fp8_rate == doctest::Approx(6.812 / 7.161));
}

TEST_CASE("the bytes each recipe moves to quantise one bf16 input element") {
  // Read it (twice for tensorwise's amax pass) at 2 bytes, write each copy: tensorwise on
  // Hopper 2·2 + 2·1 = 6, on Blackwell (one copy serves both layouts) 5; delayed 4 and 3;
  // blockwise 2 + 2·(1 + 4/128) = 4.0625; mxfp8 2 + 2·(1 + 1/32) = 4.0625 on both.
  const auto bytes = [](Fp8Recipe r, Architecture a) { return fp8_cast_bytes(r, a, Fp8Operand::Input); };
  CHECK(bytes(Fp8Recipe::Tensorwise, Architecture::Hopper) == 6.0);
  CHECK(bytes(Fp8Recipe::Tensorwise, Architecture::Blackwell) == 5.0);
  CHECK(bytes(Fp8Recipe::Delayed, Architecture::Hopper) == 4.0);
  CHECK(bytes(Fp8Recipe::Delayed, Architecture::Blackwell) == 3.0);
  CHECK(bytes(Fp8Recipe::Blockwise, Architecture::Hopper) == 4.0625);
  CHECK(bytes(Fp8Recipe::Mxfp8, Architecture::Blackwell) == 4.0625);
  // The weight copies kept beside the bf16 weight, per element: two on Hopper, one on
  // Blackwell under tensorwise; 128x128 blocks add 4/16384 a copy; mxfp8 two of 1 + 1/32.
  CHECK(fp8_weight_copy_bytes(Fp8Recipe::Tensorwise, Architecture::Hopper) == 2.0);
  CHECK(fp8_weight_copy_bytes(Fp8Recipe::Tensorwise, Architecture::Blackwell) == 1.0);
  CHECK(fp8_weight_copy_bytes(Fp8Recipe::Blockwise, Architecture::Hopper) == doctest::Approx(2 + 8.0 / 16384));
  CHECK(fp8_weight_copy_bytes(Fp8Recipe::Mxfp8, Architecture::Blackwell) == 2.0625);
}

TEST_CASE("one layer in FP8: products marked, casts in F and B, saved tensors in FP8") {
  // tiny-llama's four linear layers over T = 32 tokens, tp 1 (LinearTensors: X, dY, W):
  // QKV 32·64, 32·128, 64·128; output 32·64, 32·64, 64·64 (X kept by flash attention); gate and
  // up 32·64, 32·256, 64·256; down 32·128, 32·64, 128·64. Inputs 10240, gradients 16384,
  // weights 36864 (the layer's linear parameters).
  const TrainingSettings t = tiny_fp8(Fp8Recipe::Tensorwise);
  const GpuSpec hopper = round_fp8_gpu(Architecture::Hopper);
  PieceWork w = layer_work(tiny_llama(), t);
  const PieceWork bf16 = w;
  PhaseGemms g = layer_linear_gemms(tiny_llama(), t, {});
  CHECK(fp8_weight_elements(g) == 36864.0);
  apply_fp8(w, g, t, hopper);
  for (const GemmShape& p : g.f) CHECK(p.fp8);
  for (const GemmShape& p : g.w) CHECK(p.fp8);
  // 6 bytes an element on Hopper: F 6·10240, B 6·16384; W casts nothing (it reads the copies).
  CHECK(w.f_bytes - bf16.f_bytes == 6.0 * 10240);
  CHECK(w.b_bytes - bf16.b_bytes == 6.0 * 16384);
  CHECK(w.w_bytes == bf16.w_bytes);
  CHECK(w.f_flops == bf16.f_flops);  // the work is the same; only its rate changes
  // a_F: QKV's, gate-up's and down's inputs 1 byte instead of 2 (-2048 - 2048 - 4096), the
  // output projection's FP8 copy beside the attention output (+2048): 53760 - 6144 = 47616.
  CHECK(bf16.activation_bytes == 53760);
  CHECK(w.activation_bytes == 47616);
  // a_W: every input and output gradient W reads at 1 byte instead of 2: 53248 - 26624.
  CHECK(bf16.w_activation_bytes == 53248);
  CHECK(w.w_activation_bytes == 26624);

  // MXFP8 on Blackwell: 4.0625 bytes a cast element, saved tensors at 1 + 1/32.
  const TrainingSettings mx = tiny_fp8(Fp8Recipe::Mxfp8);
  PieceWork m = layer_work(tiny_llama(), mx);
  PhaseGemms mg = layer_linear_gemms(tiny_llama(), mx, {});
  apply_fp8(m, mg, mx, round_fp8_gpu(Architecture::Blackwell));
  CHECK(m.f_bytes - bf16.f_bytes == doctest::Approx(4.0625 * 10240));
  CHECK(m.activation_bytes == 53760 - 8192 + 8192 / 32 * 1 + 2048 + 2048 / 32);  // (1/32 - 1) on 8192, 33/32 on 2048
}

TEST_CASE("full recompute casts the forward's inputs again in B and keeps no FP8 activations") {
  TrainingSettings t = tiny_fp8(Fp8Recipe::Delayed);
  t.recompute = Recompute::Full;
  PieceWork w = layer_work(tiny_llama(), t);
  const PieceWork bf16 = w;
  PhaseGemms g = layer_linear_gemms(tiny_llama(), t, {});
  apply_fp8(w, g, t, round_fp8_gpu(Architecture::Hopper));
  CHECK(w.f_bytes - bf16.f_bytes == 4.0 * 10240);
  CHECK(w.b_bytes - bf16.b_bytes == 4.0 * (16384 + 10240));
  CHECK(w.activation_bytes == bf16.activation_bytes);
  for (const GemmShape& p : g.b) CHECK(p.fp8);  // the recomputed forward's and W's products too
}

TEST_CASE("the profile keeps the FP8 weight copies and makes them once a step") {
  const ModelConfig m = tiny_llama();
  const GpuSpec hopper = round_fp8_gpu(Architecture::Hopper);
  TrainingSettings bf16;
  bf16.seq = 16;
  TrainingSettings fp8 = bf16;
  fp8.fp8 = Fp8Recipe::Tensorwise;
  const Layout layout = parse_layout("E,t*8,H", 8, "x");
  const std::vector<int> one{0};
  const AnalyticProfile a = analytic_profile(m, bf16, hopper, kHalf, layout, {one, 1, 1, 8});
  const AnalyticProfile b = analytic_profile(m, fp8, hopper, kHalf, layout, {one, 1, 1, 8});
  // 8 layers of 36864 linear weights, two one-byte copies each on Hopper; made from the stepped
  // weights at 6 bytes an element: 8 · 36864 · 6 / 5e11 s.
  CHECK(b.costs.devices[0].static_memory_bytes - a.costs.devices[0].static_memory_bytes == 8 * 36864 * 2);
  CHECK(b.costs.devices[0].optimizer_ms - a.costs.devices[0].optimizer_ms ==
        doctest::Approx(8 * 36864 * 6.0 / 5e11 * 1e3));
  CHECK(b.model_flops_per_microbatch == a.model_flops_per_microbatch);
  CHECK(b.costs.stages[0].activation_bytes < a.costs.stages[0].activation_bytes);
}

TEST_CASE("which card runs which recipe") {
  CHECK(default_fp8_recipe(gpu_named("b200")) == Fp8Recipe::Mxfp8);
  CHECK(default_fp8_recipe(gpu_named("gb300")) == Fp8Recipe::Mxfp8);
  CHECK(default_fp8_recipe(gpu_named("h100")) == Fp8Recipe::Tensorwise);
  CHECK(default_fp8_recipe(gpu_named("rtx4090")) == Fp8Recipe::Tensorwise);
  CHECK(!default_fp8_recipe(gpu_named("a100-80gb")));
  CHECK(fp8_refusal(Fp8Recipe::Tensorwise, gpu_named("a100-80gb"))->find("has no FP8") != std::string::npos);
  CHECK(fp8_refusal(Fp8Recipe::Mxfp8, gpu_named("h100"))->find("mxfp8 needs Blackwell") != std::string::npos);
  CHECK(fp8_refusal(Fp8Recipe::Blockwise, gpu_named("rtx4090")).has_value());
  CHECK(!fp8_refusal(Fp8Recipe::Blockwise, gpu_named("h800")));
  CHECK(!fp8_refusal(Fp8Recipe::Delayed, gpu_named("b300")));
  PieceWork w;
  PhaseGemms g;
  CHECK_THROWS_WITH_AS(apply_fp8(w, g, tiny_fp8(Fp8Recipe::Mxfp8), gpu_named("h100")),
                       doctest::Contains("mxfp8 needs Blackwell"), Error);
}

TEST_CASE("under FSDP without pipeline parallelism a rank keeps its shard's FP8 copies and the units' in flight") {
  // docs/costs.md, "FP8": the copies are made of each rank's shard and gathered with it, so of
  // the 8 layers' linear weights a rank of dp 4 keeps a quarter, and the two units in flight whole.
  const ModelConfig m = tiny_llama();
  TrainingSettings t;
  t.seq = 256;
  t.sharding = Sharding::Params;
  const GpuSpec& h100 = gpu_named("h100");
  const std::vector<int> one{0};
  const Layout layout = parse_layout("E,t*8,H", 8, "test");
  const AnalyticProfile bf16 = analytic_profile(m, t, h100, {}, layout, {one, 1, 4, 8});
  t.fp8 = Fp8Recipe::Tensorwise;
  const AnalyticProfile fp8 = analytic_profile(m, t, h100, {}, layout, {one, 1, 4, 8});
  const double layer = fp8_weight_elements(layer_linear_gemms(m, t));
  const double copies =
      (8 * layer / 4 + 2 * layer) * fp8_weight_copy_bytes(Fp8Recipe::Tensorwise, Architecture::Hopper);
  CHECK(double(fp8.costs.devices[0].static_memory_bytes - bf16.costs.devices[0].static_memory_bytes) ==
        doctest::Approx(copies).epsilon(1e-6));
}

TEST_CASE("--fp8-params: the FP8 copies are the linear weights, without their bf16 copy") {
  const ModelConfig m = tiny_llama();
  const GpuSpec hopper = round_fp8_gpu(Architecture::Hopper);
  TrainingSettings t;
  t.seq = 16;
  t.fp8 = Fp8Recipe::Tensorwise;
  t.sharding = Sharding::Optimizer;
  const Layout layout = parse_layout("E,t*8,H", 8, "x");
  const std::vector<int> one{0};
  const AnalyticProfile copies = analytic_profile(m, t, hopper, kHalf, layout, {one, 1, 2, 8});
  t.fp8_params = true;
  const AnalyticProfile alone = analytic_profile(m, t, hopper, kHalf, layout, {one, 1, 2, 8});
  // The 8 layers' 36864 linear weights each lose their 2-byte bf16 copy; the norms, embedding and
  // head keep theirs, and the fp32 master stays with the distributed optimizer's states.
  CHECK(copies.costs.devices[0].static_memory_bytes - alone.costs.devices[0].static_memory_bytes == 8 * 36864 * 2);
  CHECK(alone.costs.stages[0].f_ms == copies.costs.stages[0].f_ms);
  // Megatron-LM keeps FP8 weights alone only with its distributed optimizer or FSDP, and
  // Megatron-FSDP's FP8 units are not modelled.
  t.sharding = Sharding::None;
  CHECK(test::error_of([&] {
          (void)analytic_profile(m, t, hopper, kHalf, layout, {one, 1, 2, 8});
        }).starts_with("--fp8-params: Megatron-LM keeps the weights in FP8 alone only with its distributed optimizer"));
  (void)analytic_profile(m, t, hopper, kHalf, layout, {one, 1, 1, 8});  // no replicas: nothing to shard
  t.sharding = Sharding::Params;
  CHECK(test::error_of([&] {
          (void)analytic_profile(m, t, hopper, kHalf, layout, {one, 1, 2, 8});
        }).starts_with("--fp8-params with --sharding params"));
  t.fp8.reset();  // bf16 training: nothing in FP8, nothing changes
  t.sharding = Sharding::Optimizer;
  TrainingSettings bf16 = t;
  bf16.fp8_params = false;
  CHECK(analytic_profile(m, t, hopper, kHalf, layout, {one, 1, 2, 8}).costs.devices[0].static_memory_bytes ==
        analytic_profile(m, bf16, hopper, kHalf, layout, {one, 1, 2, 8}).costs.devices[0].static_memory_bytes);
}
