#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/data_parallel_replicas.hpp"
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
  CHECK(p.costs.boundaries.empty());
  // With 8 data-parallel replicas of this 2-stage pipeline on two 8-GPU nodes, Megatron's order
  // (rank = d + 8p) puts each device's replicas on one node: the fp32 gradients' ring all-reduce,
  // 2(d-1)/d * 4 bytes a parameter, stays on the node's link, and the pipeline's one boundary
  // crosses to the other node.
  const auto all_reduce_ms = [&](double gb_per_s, double latency) {
    return latency + 2.0 * 7 / 8 * double(params0) * 4 / (gb_per_s * 1e9) * 1e3;
  };
  AnalyticProfile dp = analytic_profile(m, t, gpu, {}, layout, {placement, 2, 8, 8});
  CHECK(dp.costs.devices[0].optimizer_ms - p.costs.devices[0].optimizer_ms == doctest::Approx(all_reduce_ms(50, 0.01)));
  CHECK(dp.costs.transfer.bandwidth_gb_per_s == 10.0);
  // Pipeline neighbours side by side (rank = p + 2d): the pipeline stays in a node and each
  // device's replicas {p, p + 2, ..., p + 14} span both, 4 on each, so the all-reduce takes the
  // network on 4 cards a node: 4 x 10 GB/s (under the node link's 50), at the network's latency.
  dp = analytic_profile(m, t, gpu, {}, layout, {placement, 2, 8, 8, RankOrder::TpPpDp});
  CHECK(dp.costs.devices[0].optimizer_ms - p.costs.devices[0].optimizer_ms == doctest::Approx(all_reduce_ms(40, 0.05)));
  CHECK(dp.costs.transfer.bandwidth_gb_per_s == 50.0);
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

namespace {

// "E,t|t|...|t,H": one layer a stage.
Layout one_layer_a_stage(int stages) {
  std::string text = "E,t";
  for (int s = 1; s < stages; ++s) text += "|t";
  return parse_layout(text + ",H", stages, "test");
}

}  // namespace

TEST_CASE("a 16-stage pipeline on two 8-GPU nodes pays the network on one boundary only") {
  ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  m.layers = 16;
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  const GpuSpec gpu = round_gpu();  // node link 50 GB/s, 0.01 ms; network 10 GB/s, 0.05 ms
  const std::vector<int> placement = loop_placement(16, 1);
  // pp 16, tp 1, dp 1: rank = p under either order; devices 0..7 on node 0, 8..15 on node 1.
  const AnalyticProfile p = analytic_profile(m, t, gpu, {}, one_layer_a_stage(16), {placement, 16, 1, 8});
  REQUIRE(p.costs.boundaries.size() == 15);
  // s·b·h·e / tp = 16 · 2 · 64 · 2 / 1 = 4096 bytes on every boundary.
  for (std::size_t s = 0; s < 15; ++s) {
    INFO("boundary ", s);
    CHECK(p.costs.boundaries[s].bytes == 4096);
    CHECK(p.costs.boundaries[s].bandwidth_gb_per_s == (s == 7 ? 10.0 : 50.0));
    CHECK(p.costs.boundaries[s].latency_ms == (s == 7 ? 0.05 : 0.01));
  }
  // 0.05 + 4096 / 10e9 s = 0.0504096 ms across, 0.01 + 4096 / 50e9 s = 0.01008192 ms inside.
  CHECK(p.costs.transfer_ms(7) == doctest::Approx(0.0504096));
  CHECK(p.costs.transfer_ms(6) == doctest::Approx(0.01008192));
  // `transfer`, for readers that take one time, is the slowest.
  CHECK(p.costs.transfer.bandwidth_gb_per_s == 10.0);
  CHECK(p.costs.transfer.bytes == 4096);
  // On one 16-GPU node every boundary is alike: one transfer, no boundaries, as before.
  const AnalyticProfile one = analytic_profile(m, t, gpu, {}, one_layer_a_stage(16), {placement, 16, 1, 16});
  CHECK(one.costs.boundaries.empty());
  CHECK(one.costs.transfer.bandwidth_gb_per_s == 50.0);
  // With tp 2 (16 · 2 = 32 ranks, rank = t + 2p), bytes halve and nodes hold 4 devices: the
  // boundaries 3->4, 7->8 and 11->12 cross.
  t.tp = 2;
  const AnalyticProfile tp2 = analytic_profile(m, t, gpu, {}, one_layer_a_stage(16), {placement, 16, 1, 8});
  REQUIRE(tp2.costs.boundaries.size() == 15);
  for (std::size_t s = 0; s < 15; ++s) {
    INFO("boundary ", s);
    CHECK(tp2.costs.boundaries[s].bytes == 2048);
    CHECK(tp2.costs.boundaries[s].bandwidth_gb_per_s == (s % 4 == 3 ? 10.0 : 50.0));
  }
}

TEST_CASE("chunks: the looped placement's wrap from the last device to the first, and the V's turn") {
  ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  const GpuSpec gpu = round_gpu();
  const Layout layout = one_layer_a_stage(8);
  // pp 4 on 2-GPU nodes: devices 0, 1 on node 0 and 2, 3 on node 1. Looped, V = 2: stages on
  // devices 0 1 2 3 0 1 2 3; boundaries 0->1 inside, 1->2 across, 2->3 inside, 3->0 (the wrap
  // into the second chunk) across, then the same again.
  const AnalyticProfile looped = analytic_profile(m, t, gpu, {}, layout, {loop_placement(4, 2), 4, 1, 2});
  REQUIRE(looped.costs.boundaries.size() == 7);
  const std::vector<double> looped_gb{50, 10, 50, 10, 50, 10, 50};
  for (std::size_t s = 0; s < 7; ++s) CHECK(looped.costs.boundaries[s].bandwidth_gb_per_s == looped_gb[s]);
  // The V: devices 0 1 2 3 3 2 1 0. Stages 3 and 4 share device 3: no transfer crosses a link,
  // so that boundary gets the node's; 2->1 crosses back.
  const AnalyticProfile vee = analytic_profile(m, t, gpu, {}, layout, {vee_placement(4), 4, 1, 2});
  REQUIRE(vee.costs.boundaries.size() == 7);
  const std::vector<double> vee_gb{50, 10, 50, 50, 50, 10, 50};
  for (std::size_t s = 0; s < 7; ++s) CHECK(vee.costs.boundaries[s].bandwidth_gb_per_s == vee_gb[s]);
}

TEST_CASE("tensor parallelism beyond a node: its rings cross on every member's card, up to the node's link") {
  PieceWork w;
  w.tp_bytes = 5e8;  // 0.01 + 5e8 / 5e10 s = 10.01 ms on the node's link (50 GB/s)
  w.f_collectives = 1;
  const GpuSpec gpu = round_gpu();
  TrainingSettings t;
  t.tp = 16;
  const GroupLinks inside = group_links(gpu, {16, 1, 1, 1, 16, RankOrder::TpDpPp});
  CHECK(piece_cost(w, gpu, {0.5, 0.25}, t, &inside).f_ms == doctest::Approx(10.01));
  // 8 members on each 8-GPU node: 8 cards of 10 GB/s outpace the node's 50 GB/s, which bounds
  // the ring; the network's latency: 0.05 + 5e8 / 5e10 s = 10.05 ms.
  const GroupLinks eight = group_links(gpu, {16, 1, 1, 1, 8, RankOrder::TpDpPp});
  CHECK(piece_cost(w, gpu, {0.5, 0.25}, t, &eight).f_ms == doctest::Approx(10.05));
  // 2 members on each 2-GPU node: 2 cards, 20 GB/s: 0.05 + 5e8 / 2e10 s = 25.05 ms.
  const GroupLinks two = group_links(gpu, {16, 1, 1, 1, 2, RankOrder::TpDpPp});
  CHECK(piece_cost(w, gpu, {0.5, 0.25}, t, &two).f_ms == doctest::Approx(25.05));
  // One member a node: one card, 10 GB/s: 0.05 + 5e8 / 1e10 s = 50.05 ms.
  const GroupLinks one = group_links(gpu, {16, 1, 1, 1, 1, RankOrder::TpDpPp});
  CHECK(piece_cost(w, gpu, {0.5, 0.25}, t, &one).f_ms == doctest::Approx(50.05));
}

TEST_CASE("offloading the first layers frees their activations and adds what their copies do not hide") {
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  const Layout layout = parse_layout("E,t*8,H", 8, "x");
  const std::vector<int> placement = loop_placement(1, 1);
  GpuSpec gpu = round_gpu();
  gpu.host_link = {"host", 1e6, 0.0};  // fast enough that no copy outlasts a layer
  const AnalyticProfile kept = analytic_profile(m, t, gpu, {}, layout, {placement, 1, 1, 8});
  t.offload_layers = 3;
  const AnalyticProfile off = analytic_profile(m, t, gpu, {}, layout, {placement, 1, 1, 8});
  // Three layers' activations leave the card; the tiny layer keeps 57,344 bytes at this shape
  // (piece_work_test's count with the log-sum-exp of flash attention, 57344 - 4096 + 512).
  const Bytes layer = layer_work(m, t).activation_bytes;
  CHECK(layer == 57'344 - 4096 + 4 * 2 * 16 * 4);
  CHECK(kept.costs.stages[0].activation_bytes - off.costs.stages[0].activation_bytes == 3 * layer);
  CHECK(off.costs.stages[0].f_ms == kept.costs.stages[0].f_ms);
  CHECK(off.breakdown.stages[0].offload == 0.0);
  // At 1000 bytes/s a copy takes as many ms as the layer has bytes, against microseconds of
  // compute. With 8 - 3 = 5 layers' room, layer 7's forward waits for all three copies to the
  // host, one after another, and in the backward the three copies back run one after another
  // from layer 7's end, each layer waiting for its own: about 3 copies each way.
  gpu.host_link = {"host", 1e-6, 0.0};
  const AnalyticProfile slow = analytic_profile(m, t, gpu, {}, layout, {placement, 1, 1, 8});
  const double waited =
      slow.costs.stages[0].f_ms + slow.costs.stages[0].b_ms - kept.costs.stages[0].f_ms - kept.costs.stages[0].b_ms;
  CHECK(waited == doctest::Approx(6.0 * double(layer)).epsilon(1e-4));
  CHECK(slow.breakdown.stages[0].offload == doctest::Approx(waited));
  CHECK(slow.costs.stages[0].w_ms == kept.costs.stages[0].w_ms);
  // A card without a host link in the table, and a pipeline, are refused.
  gpu.host_link = {"none", 0.0, 0.0};
  CHECK(test::error_of([&] {
          (void)analytic_profile(m, t, gpu, {}, layout, {placement, 1, 1, 8});
        }) == "--offload-layers 3: round has no host link in the GPU table to offload over");
  gpu.host_link = {"host", 1e6, 0.0};
  CHECK(test::error_of([&] {
          (void)analytic_profile(m, t, gpu, {}, parse_layout("E,t*4|t*4,H", 8, "x"), {loop_placement(2, 1), 2, 1, 8});
        }).starts_with("--offload-layers 3: Megatron-LM offloads activations only without pipeline parallelism"));
}

TEST_CASE("full recompute's block recomputes each stage's first N layers and keeps the rest as none does") {
  // Megatron-LM's block method (megatron/core/recompute.py): in each model chunk, layer_idx <
  // recompute_num_layers runs under a checkpoint, the others do not. So a stage of n layers with
  // a block of N holds N layers' full-recompute work and n - N layers' recompute-none work: its
  // kept activations and its B + W are those of the two extremes mixed layer by layer.
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  // Two devices of two chunks each: four stages of two layers (the embedding and head at the ends).
  const Layout layout = parse_layout("E,t*2|t*2|t*2|t*2,H", 8, "x");
  const std::vector<int> placement = loop_placement(2, 2);
  const GpuSpec gpu = round_gpu();
  const auto profile = [&](Recompute r, int block) {
    TrainingSettings s = t;
    s.recompute = r;
    s.recompute_layers = block;
    return analytic_profile(m, s, gpu, {}, layout, {placement, 2, 1, 8});
  };
  const AnalyticProfile none = profile(Recompute::None, 0);
  const AnalyticProfile full = profile(Recompute::Full, 0);
  const AnalyticProfile block = profile(Recompute::Full, 1);
  TrainingSettings kept = t, recomputed = t;
  recomputed.recompute = Recompute::Full;
  const double a_none = double(layer_work(m, kept).activation_bytes);
  const double a_full = double(layer_work(m, recomputed).activation_bytes);
  REQUIRE(a_full < a_none);
  for (std::size_t s = 0; s < layout.size(); ++s) {
    const StageCost& b = block.costs.stages[s];
    const StageCost& n = none.costs.stages[s];
    const StageCost& f = full.costs.stages[s];
    // Each chunk recomputes its first layer, not its second: one layer's worth of each.
    CHECK(double(b.activation_bytes) == doctest::Approx(double(n.activation_bytes) - (a_none - a_full)));
    CHECK(b.f_ms == doctest::Approx(n.f_ms));
    // Without the embedding and head (whose W follows the stage's recompute), B + W moves from
    // none's towards full's by one of the two layers.
    if (!layout[s].embedding && !layout[s].head) {
      const double both_none = n.b_ms + n.w_ms, both_full = f.b_ms + f.w_ms;
      CHECK(b.b_ms + b.w_ms == doctest::Approx(both_none + (both_full - both_none) / 2));
      CHECK(b.w_ms == doctest::Approx(n.w_ms / 2));  // the kept layer's W stays W
    }
  }
  // A block as deep as the stage is full recompute; none past it; no block without full.
  const AnalyticProfile whole = profile(Recompute::Full, 2);
  CHECK(whole.costs.stages[1].b_ms == doctest::Approx(full.costs.stages[1].b_ms));
  CHECK(whole.costs.stages[1].activation_bytes == full.costs.stages[1].activation_bytes);
  CHECK(test::error_of([&] { (void)profile(Recompute::Selective, 1); }) ==
        "--recompute-layers 1: chooses the layers full recompute recomputes (Megatron-LM's block method), and the "
        "recompute is selective; give --recompute full");
  CHECK(test::error_of([&] { (void)profile(Recompute::Full, -1); }) ==
        "--recompute-layers -1: the layers to recompute must be 0 (all) or more");
}
