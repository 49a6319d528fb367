// FSDP2 (--sharding params) as torchtitan runs it (docs/costs.md, "FSDP"): its static memory, its
// units' exposed gathers without pipeline parallelism, and its once-a-step collectives beside it.
#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/data_parallel_replicas.hpp"
#include "estimate/fsdp.hpp"
#include "estimate/piece_gemms.hpp"
#include "io/model_config_json.hpp"
#include "model/placement.hpp"

using namespace pipeplan;

namespace {

ModelConfig tiny_llama() {
  return read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
}

}  // namespace

TEST_CASE("FSDP's bytes a parameter: fp32 shards of weight, gradient and moments, gathered units beside") {
  // torchtitan's MixedPrecisionPolicy keeps the sharded parameter in fp32 (Adam's master) and
  // gathers bf16: 4 + 4 + 8 = 16 bytes over d ranks, in bf16 and fp32 training alike.
  CHECK(fsdp_sharded_bytes_per_parameter(8) == 2.0);
  CHECK(static_bytes_per_parameter(DType::BF16, Sharding::Params, 8) == 16.0 / 8);
  CHECK(static_bytes_per_parameter(DType::FP32, Sharding::Params, 4) == 16.0 / 4);
  // Beside pipeline parallelism the stage's weights stay gathered (2) and its gradients unsharded
  // in fp32 (4) all step; alone, two units in flight, each 2 + 4 bytes a parameter.
  CHECK(fsdp_unsharded_bytes_per_parameter(DType::BF16, true) == 6.0);
  CHECK(fsdp_unsharded_bytes_per_parameter(DType::BF16, false) == 0.0);
  CHECK(fsdp_in_flight_bytes(1000, DType::BF16) == 12000.0);
  // Megatron-FSDP's bf16 gradients (--grad-reduce-in-bf16): 2 bytes where fp32's were 4.
  CHECK(fsdp_sharded_bytes_per_parameter(8, 2) == 14.0 / 8);
  CHECK(fsdp_unsharded_bytes_per_parameter(DType::BF16, true, 2) == 4.0);
  CHECK(fsdp_in_flight_bytes(1000, DType::BF16, 2) == 8000.0);
}

TEST_CASE("a unit's gather and reduce-scatter, and what of them its F and B wait for") {
  // 1e9 parameters over 4 ranks on 100 GB/s, no latency: the gather moves 3/4 x 2 GB (15 ms),
  // the fp32 reduce-scatter 3/4 x 4 GB (30 ms).
  const FsdpUnitMs u = fsdp_unit_ms(1e9, DType::BF16, 4, {"test", 100.0, 0.0});
  CHECK(u.gather_ms == doctest::Approx(15.0));
  CHECK(u.reduce_ms == doctest::Approx(30.0));
  // F prefetches the next gather under 10 ms of compute: 5 ms show; B gathers one unit and
  // reduce-scatters another under 20 + 10 ms: 45 - 30 = 15 ms show.
  const FsdpExposedMs x = fsdp_exposed_per_unit(u, 10.0, 20.0, 10.0);
  CHECK(x.f_ms == doctest::Approx(5.0));
  CHECK(x.b_ms == doctest::Approx(15.0));
  CHECK(fsdp_exposed_per_unit(u, 20.0, 40.0, 10.0).f_ms == 0.0);
  // Beside pipeline parallelism: the reduce-scatter whole after the last backward, the gather's
  // 15 ms less one micro-batch's 12 ms forward.
  CHECK(fsdp_step_exposed_ms(u, 12.0) == doctest::Approx(30.0 + 3.0));
  CHECK(fsdp_unit_ms(1e9, DType::BF16, 1, {"test", 100.0, 0.0}).gather_ms == 0.0);  // one rank: nothing to gather
}

TEST_CASE("FSDP alone (pp 1): static memory, exposed gathers in F and B, no step collectives") {
  const ModelConfig m = tiny_llama();
  TrainingSettings t;
  t.seq = 16;
  t.sharding = Sharding::Params;
  // The device's times alone: launched from the host, the tiny layers would last as long as
  // their launches (host_launch.hpp) and hide the gathers this checks.
  t.cuda_graphs = CudaGraphs::Full;
  const GpuSpec& h100 = gpu_named("h100");  // network 47 GB/s reached of 50, 0.02 ms
  const Layout layout = parse_layout("E,t*8,H", 8, "x");
  const std::vector<int> one{0};
  // dp 4 on 1-GPU nodes: the data-parallel group spans the network.
  const AnalyticProfile p = analytic_profile(m, t, h100, {}, layout, {one, 1, 4, 1});
  // Embedding 6400, 8 layers of 36992, head 6464 (analytic_profile_test): 308,800 parameters at
  // 16/4 bytes, and the two largest units in flight, 2 x 36,992 x (2 + 4).
  const double p_all = 6400 + 8 * 36992 + 6464;
  CHECK(p.costs.devices[0].static_memory_bytes == Bytes(p_all * 4 + 2 * 36992 * 6));
  // Adam's 28 bytes a parameter (the fp32 shard is the master) on a quarter, at 0.7 of the H100's
  // 3350 GB/s; no collective after the step: every unit did its own.
  CHECK(p.costs.devices[0].optimizer_ms == doctest::Approx(p_all * 28 / 4 / (3350e9 * 0.7) * 1e3));
  // Each layer's F waits for what its gather, 3/4 x 36,992 x 2 bytes over the network (0.02 +
  // 0.00111 ms), outlasts its own forward; B for gather plus fp32 reduce-scatter (0.02 + 0.00222).
  const GroupLinks links = group_links(h100, {1, 1, 4, 1, 1, RankOrder::TpDpPp});
  const StageCost layer = piece_cost(layer_work(m, t), layer_linear_gemms(m, t), h100, {}, t, &links);
  const StageCost head = piece_cost(head_work(m, t), head_linear_gemms(m, t), h100, {}, t, &links);
  const StageCost embedding = piece_cost(embedding_work(m, t), h100, {}, t, &links);
  const auto gather = [](double params) { return 0.02 + 0.75 * params * 2 / 47e6; };
  const auto reduce = [](double params) { return 0.02 + 0.75 * params * 4 / 47e6; };
  // What the compute hides of each still takes the 16 SMs NCCL holds from its 132
  // (collective_contention.hpp): the hidden part times 16/132 more compute.
  const double share = 16.0 / 132;
  const auto f_cost = [&](double params, const StageCost& c) {
    const double exposed = std::max(0.0, gather(params) - c.f_ms);
    return exposed + (gather(params) - exposed) * share;
  };
  const double f_exposed = 8 * std::max(0.0, gather(36992) - layer.f_ms) +
                           std::max(0.0, gather(6400) - embedding.f_ms) + std::max(0.0, gather(6464) - head.f_ms);
  CHECK(f_exposed > 8 * 0.01);  // the tiny layers' compute hides under half of the latency
  // FSDP2's copies on the compute stream (fsdp.hpp), at 0.7 of the 3350 GB/s: F's copy-out of
  // the gathered bf16 weights, read and written (4 bytes a parameter); B's again, and the
  // copy-in of the bf16 gradients into the fp32 reduce-scatter buffer (2 + 4): 10.
  const auto copy = [](double params, double bytes) { return params * bytes / (3350e9 * 0.7) * 1e3; };
  CHECK(p.costs.stages[0].f_ms ==
        doctest::Approx(8 * layer.f_ms + embedding.f_ms + head.f_ms + 8 * f_cost(36992, layer) +
                        f_cost(6400, embedding) + f_cost(6464, head) + copy(p_all, 4)));
  const auto b_cost = [&](double params, const StageCost& c) {
    const double both = gather(params) + reduce(params);
    const double exposed = std::max(0.0, both - c.b_ms - c.w_ms);
    return exposed + (both - exposed) * share;
  };
  CHECK(p.costs.stages[0].b_ms ==
        doctest::Approx(8 * layer.b_ms + embedding.b_ms + head.b_ms + 8 * b_cost(36992, layer) +
                        b_cost(6400, embedding) + b_cost(6464, head) + copy(p_all, 10)));
  // Megatron-FSDP's parameters and gradients are views of its buckets: the same without copies.
  t.fsdp_impl = FsdpImpl::Megatron;
  const AnalyticProfile views = analytic_profile(m, t, h100, {}, layout, {one, 1, 4, 1});
  CHECK(views.costs.stages[0].f_ms == doctest::Approx(p.costs.stages[0].f_ms - copy(p_all, 4)));
  CHECK(views.costs.stages[0].b_ms == doctest::Approx(p.costs.stages[0].b_ms - copy(p_all, 10)));
}

TEST_CASE("FSDP beside pipeline parallelism: gathered weights and whole gradients all step, one collective each") {
  const ModelConfig m = tiny_llama();
  TrainingSettings t;
  t.seq = 16;
  const GpuSpec& h100 = gpu_named("h100");
  const Layout layout = parse_layout("E,t*4|t*4,H", 8, "x");
  const std::vector<int> placement = loop_placement(2, 1);
  t.sharding = Sharding::Params;
  const AnalyticProfile fsdp = analytic_profile(m, t, h100, {}, layout, {placement, 2, 4, 1});
  t.sharding = Sharding::Optimizer;
  const AnalyticProfile zero1 = analytic_profile(m, t, h100, {}, layout, {placement, 2, 4, 1});
  // Device 0: the embedding and 4 layers, 154,368 parameters at 16/4 + 2 + 4 = 10 bytes, against
  // the distributed optimizer's 6 + 12/4 = 9: PyTorch's pipeline stage keeps FSDP's units gathered.
  const double p0 = 6400 + 4 * 36992;
  CHECK(fsdp.costs.devices[0].static_memory_bytes == Bytes(p0 * 10));
  CHECK(zero1.costs.devices[0].static_memory_bytes == Bytes(p0 * 9));
  // The step waits for the fp32 reduce-scatter whole and the bf16 gather's excess over one
  // micro-batch's forward on the device; the units' F and B carry nothing. What that forward
  // hides of the gather takes 16 of the H100's 132 SMs from it (collective_contention.hpp).
  CHECK(fsdp.costs.stages[0].f_ms == doctest::Approx(zero1.costs.stages[0].f_ms));
  const double reduce = 0.02 + 0.75 * p0 * 4 / 47e6, gather = 0.02 + 0.75 * p0 * 2 / 47e6;
  const double adam = p0 * 28 / 4 / (3350e9 * 0.7) * 1e3;
  const double exposed_gather = std::max(0.0, gather - fsdp.costs.stages[0].f_ms);
  CHECK(exposed_gather < gather);  // some of it hides, and so slows the forward
  // FSDP2's copies (fsdp.hpp), once a step here: the gather's copy-out (2 x 2 bytes a parameter)
  // and the reduce-scatter's copy-in (2 + 4), at 0.7 of the H100's 3350 GB/s.
  const double copies = p0 * (4 + 6) / (3350e9 * 0.7) * 1e3;
  CHECK(fsdp.costs.devices[0].optimizer_ms ==
        doctest::Approx(adam + reduce + exposed_gather + (gather - exposed_gather) * 16 / 132 + copies));
}
