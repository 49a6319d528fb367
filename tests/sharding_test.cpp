// Sharding over data parallelism (docs/costs.md, "Memory" and "Devices, optimizer and transfers").
#include <doctest/doctest.h>

#include <algorithm>
#include <utility>

#include "estimate/analytic_profile.hpp"
#include "estimate/data_parallel_replicas.hpp"
#include "io/model_config_json.hpp"
#include "model/placement.hpp"

using namespace pipeplan;

TEST_CASE("sharded static memory: Megatron's distributed-optimizer table") {
  // Megatron Core's guide: bf16 weights with fp32 gradients take 18 bytes a parameter whole and
  // 6 + 12/d with the distributed optimizer; fp32 takes 16 and 8 + 8/d. Sharding the gradients
  // too leaves the 16-bit weight whole: 2 + 16/d (4 + 12/d in fp32).
  CHECK(static_bytes_per_parameter(DType::BF16, Sharding::None, 8) == 18);
  CHECK(static_bytes_per_parameter(DType::BF16, Sharding::Optimizer, 8) == 6 + 12.0 / 8);
  CHECK(static_bytes_per_parameter(DType::FP32, Sharding::Optimizer, 4) == 8 + 8.0 / 4);
  CHECK(static_bytes_per_parameter(DType::BF16, Sharding::Gradients, 8) == 2 + 16.0 / 8);
  CHECK(static_bytes_per_parameter(DType::FP32, Sharding::Gradients, 4) == 4 + 12.0 / 4);
  // Gradients in bf16 (--grad-reduce-in-bf16): 2 bytes where fp32's were 4.
  CHECK(static_bytes_per_parameter(DType::BF16, Sharding::None, 8, 2) == 16);
  CHECK(static_bytes_per_parameter(DType::BF16, Sharding::Optimizer, 8, 2) == 4 + 12.0 / 8);
}

TEST_CASE("the sharded profile: memory, optimizer step and the gradients' traffic in W") {
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  // 100 TFLOP/s, 1000 GB/s memory, 8 a node on a 50 GB/s link with 0.01 ms.
  const GpuSpec gpu{
      "round", "test card", 100.0, 100.0, 10.0, Bytes{1} << 34, 1000.0, 8, {"link", 50.0, 0.01}, {"net", 10.0, 0.05},
      0};
  const Layout layout = parse_layout("E,t*8,H", 8, "x");
  const std::vector<int> one{0};
  // Everything on one device: embedding 6400, 8 layers of 36992, head 6464 (analytic_profile_test).
  const double p = 6400 + 8 * 36992 + 6464;
  const auto profile = [&](Sharding s, int dp) {
    t.sharding = s;
    return analytic_profile(m, t, gpu, {}, layout, {one, 1, dp, 8});
  };
  const AnalyticProfile whole = profile(Sharding::None, 4);
  const AnalyticProfile opt = profile(Sharding::Optimizer, 4);
  const AnalyticProfile grads = profile(Sharding::Gradients, 4);
  CHECK(whole.costs.devices[0].static_memory_bytes == Bytes(p * 18));
  CHECK(opt.costs.devices[0].static_memory_bytes == Bytes(p * (6 + 12.0 / 4)));
  CHECK(grads.costs.devices[0].static_memory_bytes == Bytes(p * (2 + 16.0 / 4)));
  // Adam on a quarter of the parameters (30 bytes each at 0.7 of 1000 GB/s), then a ring
  // reduce-scatter of fp32 gradients and an all-gather of bf16 weights, (d-1)/d = 3/4 of them each.
  const double adam = p * 30 / 4 / 0.7e12 * 1e3;
  const auto collective = [](double bytes) { return 0.01 + bytes / 50e9 * 1e3; };
  CHECK(whole.costs.devices[0].optimizer_ms == doctest::Approx(p * 30 / 0.7e12 * 1e3 + collective(2 * 0.75 * 4 * p)));
  CHECK(opt.costs.devices[0].optimizer_ms ==
        doctest::Approx(adam + collective(0.75 * 4 * p) + collective(0.75 * 2 * p)));
  CHECK(grads.costs.devices[0].optimizer_ms == doctest::Approx(adam + collective(0.75 * 2 * p)));
  // Sharded gradients: every W reduce-scatters the stage's fp32 gradients.
  CHECK(grads.costs.stages[0].w_ms - opt.costs.stages[0].w_ms == doctest::Approx(collective(0.75 * 4 * p)));
  CHECK(grads.costs.stages[0].b_ms == opt.costs.stages[0].b_ms);
  // Without replicas there is nothing to shard.
  CHECK(profile(Sharding::Gradients, 1).costs.devices[0].static_memory_bytes == Bytes(p * 18));
  // --grad-reduce-in-bf16: Megatron-LM's gradient buffers in bf16, 2 bytes a parameter kept and
  // reduced (distributed_data_parallel.py: the buffer takes the parameters' dtype).
  t.grad_reduce_bf16 = true;
  const AnalyticProfile opt16 = profile(Sharding::Optimizer, 4);
  const AnalyticProfile grads16 = profile(Sharding::Gradients, 4);
  CHECK(opt16.costs.devices[0].static_memory_bytes == Bytes(p * (4 + 12.0 / 4)));
  CHECK(grads16.costs.devices[0].static_memory_bytes == Bytes(p * (2 + 14.0 / 4)));
  CHECK(profile(Sharding::None, 4).costs.devices[0].static_memory_bytes == Bytes(p * 16));
  CHECK(opt16.costs.devices[0].optimizer_ms ==
        doctest::Approx(adam + collective(0.75 * 2 * p) + collective(0.75 * 2 * p)));
  CHECK(grads16.costs.stages[0].w_ms - opt16.costs.stages[0].w_ms == doctest::Approx(collective(0.75 * 2 * p)));
}

TEST_CASE("Megatron's overlaps hide nothing of a model smaller than one bucket") {
  // The setting of the test above, sharding the optimizer over 4 replicas. Without overlaps the
  // step waits for Adam, the reduce-scatter R and the all-gather G. With them, Megatron-Core
  // reduces and gathers bucket by bucket (gradient_buckets.hpp), and its default bucket, 40M
  // parameters, holds the whole of this model: the reduction waits for the backward's last
  // gradient, the first forward for the whole gather, so the step waits for both all the same.
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.sharding = Sharding::Optimizer;
  // The device's times alone: launched from the host, this tiny model's layers would last as
  // long as their launches (host_launch.hpp), which these overlaps do not concern.
  t.cuda_graphs = CudaGraphs::Full;
  const Layout layout = parse_layout("E,t*8,H", 8, "x");
  const std::vector<int> one{0};
  const double p = 6400 + 8 * 36992 + 6464;
  const double adam = p * 30 / 4 / 0.7e12 * 1e3;
  const GpuSpec gpu{
      "round", "test card", 100.0, 100.0, 10.0, Bytes{1} << 34, 1000.0, 8, {"link", 50, 0.01}, {"net", 10.0, 0.05}, 0};
  // 50 GB/s and 0.01 ms: R = 0.01 + 3/4 of 4p bytes, G = 0.01 + 3/4 of 2p.
  const double reduce = 0.01 + 0.75 * 4 * p / 50e9 * 1e3, gather = 0.01 + 0.75 * 2 * p / 50e9 * 1e3;
  for (const bool grad : {false, true}) {
    for (const bool param : {false, true}) {
      t.overlap_grad_reduce = grad;
      t.overlap_param_gather = param;
      const AnalyticProfile a = analytic_profile(m, t, gpu, {}, layout, {one, 1, 4, 8});
      CHECK(a.costs.devices[0].optimizer_ms == doctest::Approx(adam + reduce + gather));
    }
  }
}

TEST_CASE("Megatron-Core buckets the first stage only, and the step's start may gather ahead of a later stage") {
  // tiny-llama over two stages on two devices, the optimizer sharded over 4 replicas on a node
  // link of 1000 GB/s and 0.001 ms, in buckets of one layer (36992 parameters). Device 1's stage
  // (4 layers and the head, p1 parameters) is one bucket, as Megatron-Core keeps every pipeline
  // rank but the first (distributed_data_parallel.py): its reduction R1 starts when its last
  // backward ends and its gather G1 before its first forward, so the step waits for both whole.
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.sharding = Sharding::Optimizer;
  t.cuda_graphs = CudaGraphs::Full;  // the device's times alone (host_launch.hpp)
  t.overlap_grad_reduce = true;
  t.overlap_param_gather = true;
  t.bucket_params = 36992;
  const Layout layout = parse_layout("E,t*4|t*4,H", 8, "x");
  const std::vector<int> two{0, 1};
  const GpuSpec gpu{
      "round", "test card", 100.0, 100.0, 10.0, Bytes{1} << 34, 1000.0, 8, {"link", 1000, 0.001}, {"net", 10.0, 0.05},
      0};
  const double p1 = 4 * 36992 + 6464;
  const auto adam = [](double p) { return p * 30 / 4 / 0.7e12 * 1e3; };
  const auto reduce = [](double p) { return 0.001 + 0.75 * 4 * p / 1e12 * 1e3; };
  const auto gather = [](double p) { return 0.001 + 0.75 * 2 * p / 1e12 * 1e3; };
  const AnalyticProfile a = analytic_profile(m, t, gpu, {}, layout, {two, 2, 4, 8});
  CHECK(a.costs.devices[1].optimizer_ms == doctest::Approx(adam(p1) + reduce(p1) + gather(p1)));
  // Dispatched at the step's start (Megatron-Core up to r0.8), device 1's gather runs while
  // device 0 runs the first micro-batch's forward through its stage: only what outlasts it shows.
  t.param_gather_at_step_start = true;
  const AnalyticProfile early = analytic_profile(m, t, gpu, {}, layout, {two, 2, 4, 8});
  const double forward0 = early.costs.stages[0].f_ms;
  CHECK(early.costs.devices[1].optimizer_ms ==
        doctest::Approx(adam(p1) + reduce(p1) + std::max(0.0, gather(p1) - forward0)));
  // Device 0 waits for nothing before its first forward: the same either way.
  CHECK(early.costs.devices[0].optimizer_ms == doctest::Approx(a.costs.devices[0].optimizer_ms));
}
