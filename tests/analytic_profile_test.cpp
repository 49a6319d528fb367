#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "io/model_config_json.hpp"
#include "model/placement.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// A GPU with round numbers: 100 TFLOP/s bf16, 1000 GB/s memory, a 50 GB/s link with 0.01 ms.
GpuSpec round_gpu() {
  return {
      "round", "test card", 100.0, 100.0, 10.0, Bytes{1} << 34, 1000.0, 8, {"link", 50.0, 0.01}, {"net", 10.0, 0.05},
      0};
}

}  // namespace

TEST_CASE("a piece's time is FLOPs at the GEMM efficiency plus bytes at the memory efficiency") {
  PieceWork w;
  w.f_flops = 1e12;  // 1e12 / (1e14 * 0.5) = 20 ms
  w.f_bytes = 1e9;   // 1e9 / (1e12 * 0.25) = 4 ms
  w.b_flops = 2e12;  // 40 ms
  w.tp_bytes = 5e8;  // a collective: 0.01 + 5e8 / 5e10 s = 10.01 ms
  w.b_collectives = 2;
  w.w_flops = 1e12;
  w.activation_bytes = 100;
  w.w_activation_bytes = 300;  // more than a_F: capped
  TrainingSettings t;
  const StageCost c = piece_cost(w, round_gpu(), {0.5, 0.25}, t);
  CHECK(c.f_ms == doctest::Approx(24.0));
  CHECK(c.b_ms == doctest::Approx(40.0 + 2 * 10.01));
  CHECK(c.w_ms == doctest::Approx(20.0));
  CHECK(c.w_activation_bytes == 100);
}

TEST_CASE("static memory and optimizer time follow the parameters each device holds") {
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  const Layout layout = parse_layout("E,t*4|t*4,H", 8, "x");
  const std::vector<int> placement = loop_placement(2, 1);
  const GpuSpec gpu = round_gpu();
  AnalyticProfile p = analytic_profile(m, t, gpu, {}, layout, {placement, 2, 1, 8});
  // Stage 0: the embedding 100*64 = 6400 and 4 layers of 36992; stage 1: 4 layers and the
  // head 6400 + 64. bf16 with fp32 gradients and Adam: 18 bytes each (Megatron-LM).
  const std::int64_t params0 = 6400 + 4 * 36992;
  const std::int64_t params1 = 4 * 36992 + 6464;
  CHECK(p.costs.devices[0].static_memory_bytes == params0 * 18);
  CHECK(p.costs.devices[1].static_memory_bytes == params1 * 18);
  // Adam moves 30 bytes a parameter at 0.7 of 1000 GB/s.
  CHECK(p.costs.devices[0].optimizer_ms == doctest::Approx(double(params0) * 30 / 0.7e12 * 1e3));
  // A transfer carries one micro-batch's T x h activation: 32 * 64 * 2 bytes over the node's link.
  CHECK(p.costs.transfer.bytes == 32 * 64 * 2);
  CHECK(p.costs.transfer.bandwidth_gb_per_s == 50.0);
  // With 8 data-parallel replicas of this 2-stage pipeline, 16 GPUs span two nodes: the fp32
  // gradients' ring all-reduce, 2(d-1)/d * 4 bytes a parameter, goes over the network.
  AnalyticProfile dp = analytic_profile(m, t, gpu, {}, layout, {placement, 2, 8, 8});
  CHECK(dp.costs.devices[0].optimizer_ms - p.costs.devices[0].optimizer_ms ==
        doctest::Approx(0.05 + 2.0 * 7 / 8 * double(params0) * 4 / 10e9 * 1e3));
  CHECK(test::error_of([&] {
          (void)analytic_profile(m, t, gpu, {}, layout, {loop_placement(3, 1), 3, 1, 8});
        }) == "the placement names 3 stages, the layout has 2");
}

TEST_CASE("Llama-2-7B's memory against published figures") {
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/llama-2-7b.json");
  TrainingSettings t;
  t.dtype = DType::FP16;
  const Layout whole = parse_layout("E,t*32,H", 32, "x");
  const std::vector<int> one = loop_placement(1, 1);
  const AnalyticProfile p = analytic_profile(m, t, gpu_named("a100-80gb"), {}, whole, {one, 1, 1, 8});
  // 6.74 B parameters; the fp16 checkpoint is 13.48 GB (meta-llama/Llama-2-7b-hf's two
  // safetensors shards, 9.98 + 3.50 GB), so 2 bytes each. Mixed-precision Adam with fp32
  // gradients keeps 18 bytes a parameter (Megatron-LM's distributed-optimizer table): 121.3 GB,
  // which is why 7B does not train on one 80 GB card without sharding the optimizer.
  CHECK(static_cast<double>(p.costs.devices[0].static_memory_bytes) == doctest::Approx(6'738'415'616.0 * 18));
  CHECK(p.costs.devices[0].static_memory_bytes > gpu_named("a100-80gb").memory_bytes);
  CHECK(static_bytes_per_parameter(DType::FP32) == 16);  // fp32 weights, gradients, two moments
}
