// A mixture of experts' parameters, FLOPs, activations and all-to-alls, derived by hand
// (docs/costs.md, "Mixture of experts").
#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/moe_work.hpp"
#include "io/model_config_json.hpp"
#include "model/placement.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

ModelConfig mixtral() {
  return read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/mixtral-8x7b.json");
}

// h = 64, 4 heads, 2 key-value heads (hk = 32), 2 layers, V = 100; 4 experts of width 32, k = 2,
// a shared expert of width 48 with its gate. s = 16, b = 2 (T = 32), bf16 (e = 2), no flash.
ModelConfig tiny_moe() {
  return read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-qwen-moe.json");
}

TrainingSettings tiny_training(int ep) {
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  t.flash_attention = false;
  t.ep = ep;
  return t;
}

}  // namespace

TEST_CASE("Mixtral 8x7B: 46.7e9 parameters, 12.9e9 of them active per token") {
  const ModelConfig m = mixtral();
  CHECK(m.moe.experts == 8);
  CHECK(m.moe.per_token == 2);
  CHECK(m.moe.ffn == 14336);
  CHECK(m.moe.shared_ffn == 0);
  // Per layer: QKV h(h + 2hk) and output h^2 with hk = 8 heads x 128; 8 SwiGLU experts of 3hf;
  // the router h x 8; two RMSNorm weights. Then the embedding and the untied head, V x h each,
  // and the final norm.
  const std::int64_t h = 4096, hk = 1024, f = 14336, V = 32000, L = 32;
  const std::int64_t attention = h * (h + 2 * hk) + h * h;  // 41,943,040
  const std::int64_t per_layer_rest = h * 8 + 2 * h;        // router and norms
  const std::int64_t outside = 2 * V * h + h;               // embedding, head, final norm
  CHECK(model_parameters(m) == L * (attention + 8 * 3 * h * f + per_layer_rest) + outside);
  CHECK(model_parameters(m) == 46'702'792'704);  // Hugging Face's num_parameters() for Mixtral-8x7B-v0.1
  CHECK(active_parameters(m) == L * (attention + 2 * 3 * h * f + per_layer_rest) + outside);
  CHECK(active_parameters(m) == 12'879'925'248);
  // A layer's weight-gradient FLOPs are 2 per multiply-add over the T tokens for every weight a
  // token passes through: the attention's, 2 of the experts' and the router's (norms are not GEMMs).
  TrainingSettings t;
  t.seq = 4096;
  const PieceWork w = layer_work(m, t);
  CHECK(w.w_flops == 2.0 * 4096 * double(attention + 2 * 3 * h * f + h * 8));
}

TEST_CASE("an MoE layer's FLOPs, all-to-all bytes, parameters and activations, derived by hand") {
  const ModelConfig m = tiny_moe();
  const PieceWork w = layer_work(m, tiny_training(2));
  // The block: router 2ThE = 16,384; T·k = 64 routed copies through 3 matrices of h x 32:
  // 6·64·64·32 = 786,432; the shared expert 6·T·h·48 = 589,824 and its gate 2Th = 4,096.
  const double block = 16'384 + 786'432 + 589'824 + 4'096;
  // The attention as for a dense layer: QKV 524,288 and output 262,144; the core 4bs^2h = 131,072.
  CHECK(w.f_flops == 786'432 + 131'072 + block);
  CHECK(w.b_flops == 786'432 + 2 * 131'072 + block);
  CHECK(w.w_flops == 786'432 + block);
  // Dispatch and combine, each way: T·k·h·e bytes of routed copies, (ep - 1)/ep of them to another
  // rank: 32·2·64·2 / 2 = 4,096 bytes from each rank.
  CHECK(w.all_to_all_bytes == 4096);
  CHECK(w.f_all_to_alls == 2);
  CHECK(w.b_all_to_alls == 2);
  CHECK(layer_work(m, tiny_training(4)).all_to_all_bytes == 32 * 2 * 64 * 2 * 3 / 4);
  CHECK(layer_work(m, tiny_training(1)).f_all_to_alls == 0);  // no expert parallelism, nothing to send
  // Parameters with ep 2: 2 of the 4 experts, 3·64·32 each = 12,288; router 256; shared 3·64·48 =
  // 9,216 and its gate 64; attention 8,192 + 4,096 and Qwen2's Q, K and V biases 64 + 2·32; norms 128.
  CHECK(w.expert_params == 12'288);
  CHECK(w.params == 12'288 + 256 + 9'216 + 64 + 12'288 + 128 + 128);
  // The whole model: both layers with all 4 experts (46,656 each), embedding and head 6,400 each,
  // the final norm 64; 2 idle experts a layer (24,576) are not active.
  CHECK(model_parameters(m) == 2 * 46'656 + 2 * 6'400 + 64);
  CHECK(active_parameters(m) == model_parameters(m) - 2 * 2 * 3 * 64 * 32);
  // a_F: the dense part (norm inputs 8,192, linear inputs 12,288, Q K V 8,192, scores 4,096) and
  // the block: router probabilities T·E·4 = 512, routed inputs 64·64·2 = 8,192, the experts' fused
  // SwiGLU's input (gate and up) and product 3·64·32·2 = 12,288, each routed copy's fp32 weight,
  // which the weighted SwiGLU saves, 64·4 = 256 (no expert outputs: Megatron-Core's combine
  // takes no weights), the shared expert's 3·32·48·2 = 9,216.
  CHECK(w.activation_bytes == 32'768 + 512 + 8'192 + 12'288 + 256 + 9'216);
}

TEST_CASE("the experts' all-to-alls take the node's link, or the network when the rank order spreads them") {
  const GpuSpec& h100 = gpu_named("h100");  // NVLink 450 GB/s, 0.01 ms; network 50 GB/s, 0.02 ms
  const TrainingSettings t = tiny_training(2);
  const PieceWork w = layer_work(tiny_moe(), t);
  const AllToAllMs inside = all_to_all_ms(w, h100.intra_node);
  CHECK(inside.f_ms == doctest::Approx(2 * (0.01 + 4096 / 450e9 * 1e3)));
  CHECK(inside.b_ms == inside.f_ms);
  const AllToAllMs across = all_to_all_ms(w, h100.inter_node);
  CHECK(across.f_ms == doctest::Approx(2 * (0.02 + 4096 / 50e9 * 1e3)));
  // group_links gives the experts the network once an expert-parallel group leaves its node: tp 1,
  // ep 2 on 1-GPU nodes; under tp-pp-dp with pp 8 the group {p, p + 8} spans two 8-GPU nodes.
  CHECK(group_links(h100, {1, 1, 2, 2, 8, RankOrder::TpDpPp}).experts.name == h100.intra_node.name);
  CHECK(group_links(h100, {1, 1, 2, 2, 1, RankOrder::TpDpPp}).experts.name == h100.inter_node.name);
  CHECK(group_links(h100, {1, 8, 2, 2, 8, RankOrder::TpPpDp}).experts.name == h100.inter_node.name);
  // The a2a is part of F and B's times.
  TrainingSettings alone = t;
  alone.ep = 1;
  const GroupLinks links = node_links(h100);
  const StageCost with = piece_cost(w, h100, {}, t, &links);
  const StageCost without = piece_cost(layer_work(tiny_moe(), alone), h100, {}, alone, &links);
  CHECK(with.f_ms - without.f_ms == doctest::Approx(inside.f_ms));
}

TEST_CASE("the flex dispatcher sends a token once to each rank or domain holding any of its experts") {
  // A token's k distinct experts, uniformly routed, miss a group of E/g of the E experts with
  // probability C(E - E/g, k) / C(E, k), so it reaches (g - 1)(1 - that) other groups.
  // Qwen3-30B-A3B (128 experts, top 8) at ep 8 in one node: C(112, 8)/C(128, 8) = 0.33258, 7 x
  // 0.66742 = 4.6719 ranks a token, against the all-to-all dispatcher's 8 x 7/8 = 7 copies; at
  // ep 16 over two nodes: 1 - C(64, 8)/C(128, 8) = 0.99690 of a copy over the network, against 8
  // x 15/16 = 7.5.
  CHECK(remote_groups_reached(128, 8, 8) == doctest::Approx(4.67194).epsilon(1e-5));
  CHECK(remote_groups_reached(128, 8, 2) == doctest::Approx(0.99690).epsilon(1e-5));
  CHECK(remote_groups_reached(128, 8, 1) == 0.0);
  CHECK(remote_groups_reached(4, 4, 2) == 1.0);  // every token holds every expert: always the other group
  // The tiny model (4 experts, top 2, 32 tokens of h 64 in bf16 at ep 2): 1 - C(2,2)/C(4,2) = 5/6
  // of a token copy, 4096 x 5/6 bytes, against the all-to-all's 64 copies x 64 x 2 / 2 = 4096.
  TrainingSettings t = tiny_training(2);
  const GpuSpec& h100 = gpu_named("h100");
  const AllToAllMs plain = all_to_all_ms(layer_work(tiny_moe(), t), h100.intra_node);
  t.moe_dispatcher = MoeDispatcher::Flex;
  const PieceWork flex = layer_work(tiny_moe(), t);
  const AllToAllMs deduplicated = all_to_all_ms(flex, h100.intra_node);
  CHECK(plain.f_ms == doctest::Approx(2 * (0.01 + 4096 / 450e9 * 1e3)));
  CHECK(deduplicated.f_ms == doctest::Approx(2 * (0.01 + 4096.0 * 5 / 6 / 450e9 * 1e3)));
  // Over two domains the groups are the domains: here the same two.
  CHECK(all_to_all_ms(flex, h100.inter_node, nullptr, 2).f_ms ==
        doctest::Approx(2 * (0.02 + 4096.0 * 5 / 6 / 50e9 * 1e3)));
}

TEST_CASE("DualPipe's pair hides one micro-batch's all-to-alls under the other's compute") {
  StageCost f, bw;
  f.f_ms = 3;   // 1 of it all-to-all
  bw.b_ms = 4;  // 1.5 of it all-to-all
  bw.w_ms = 2;
  // compute (3 - 1) + (4 + 2 - 1.5) = 6.5 against all-to-alls 1 + 1.5 = 2.5: compute-bound.
  CHECK(*overlapped_f_and_b_ms(f, {1, 0}, bw, {0, 1.5}) == doctest::Approx(6.5));
  // all-to-alls of 2.5 + 5.5 = 8 against compute (3 - 2.5) + (6 - 5.5) = 1: communication-bound.
  CHECK(*overlapped_f_and_b_ms(f, {2.5, 0}, bw, {0, 5.5}) == doctest::Approx(8.0));
  CHECK_FALSE(overlapped_f_and_b_ms(f, {}, bw, {}).has_value());  // a dense model: nothing to overlap
}

TEST_CASE("expert weights are sharded over dp / ep replicas, the rest over dp, the V gets FB times") {
  const ModelConfig m = tiny_moe();
  TrainingSettings t = tiny_training(2);
  t.sharding = Sharding::Optimizer;
  const GpuSpec& h100 = gpu_named("h100");
  const std::vector<int> one{0};
  const AnalyticProfile p = analytic_profile(m, t, h100, {}, parse_layout("E,t*2,H", 2, "test"), {one, 1, 4, 8});
  // Embedding 6,400, two layers of 34,368 (12,288 of experts each), head 6,464: 24,576 expert
  // weights at 2 + 4 + 12/(4/2) = 12 bytes, 57,024 others at 2 + 4 + 12/4 = 9.
  CHECK(p.costs.devices[0].static_memory_bytes == 57'024 * 9 + 24'576 * 12);
  CHECK(test::error_of([&] {
          (void)analytic_profile(m, t, h100, {}, parse_layout("E,t*2,H", 2, "test"), {one, 1, 3, 8});
        }) ==
        "--etp 1 x --ep 2: must divide tp x cp x dp = 3, the ranks of a pipeline stage the expert groups fold "
        "over");
  // On the V (pp 2, 2 stages a device) each stage's FB pairs its forward with the device's other
  // stage's backward and costs less than the two apart; a dense model's FB is left to the simulator.
  ModelConfig four = m;
  four.layers = 4;
  const std::vector<int> vee = vee_placement(2);
  const Layout layout = parse_layout("E,t|t|t|t,H", 4, "test");
  const AnalyticProfile v = analytic_profile(four, t, h100, {}, layout, {vee, 2, 2, 8});
  for (std::size_t s = 0; s < 4; ++s) {
    const StageCost& other = v.costs.stages[3 - s];  // vee: stages s and 3 - s share a device
    REQUIRE(v.costs.stages[s].f_and_b_ms.has_value());
    CHECK(*v.costs.stages[s].f_and_b_ms < v.costs.stages[s].f_ms + other.b_ms + other.w_ms);
  }
  t.ep = 1;
  CHECK_FALSE(analytic_profile(four, t, h100, {}, layout, {vee, 2, 2, 8}).costs.stages[1].f_and_b_ms.has_value());
}

TEST_CASE("Mixtral pp 8 x ep 8 on 64 H100: the pipeline or the experts pay the network, never neither") {
  const ModelConfig m = mixtral();
  TrainingSettings t;
  t.seq = 4096;
  t.ep = 8;
  const GpuSpec& h100 = gpu_named("h100");  // NVLink 450 GB/s, 0.01 ms; network 47 of 50 GB/s, 0.02 ms
  const std::vector<int> placement = loop_placement(8, 1);
  const Layout layout = parse_layout("E,t*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4,H", 32, "test");
  // tp 1, dp 8, 8-GPU nodes. tp-dp-pp: rank = d + 8p, each expert group {8p .. 8p + 7} is a node
  // and every pipeline boundary crosses one. tp-pp-dp: rank = p + 8d, each pipeline is a node and
  // every expert group {p, p + 8, ..., p + 56} spans all eight.
  const AnalyticProfile megatron = analytic_profile(m, t, h100, {}, layout, {placement, 8, 8, 8});
  const AnalyticProfile stages = analytic_profile(m, t, h100, {}, layout, {placement, 8, 8, 8, RankOrder::TpPpDp});
  CHECK(megatron.costs.transfer.bandwidth_gb_per_s == doctest::Approx(47.0));
  CHECK(stages.costs.transfer.bandwidth_gb_per_s == 450.0);
  CHECK(megatron.costs.boundaries.empty());  // all 7 alike
  CHECK(stages.costs.boundaries.empty());
  // A transfer: s·h·e = 4096 · 4096 · 2 = 33.6 MB, 0.02 + 0.714 ms across against 0.01 + 0.075
  // ms inside: 0.649 ms saved per boundary, micro-batch and direction under tp-pp-dp.
  const double saved = megatron.costs.transfer.ms() - stages.costs.transfer.ms();
  CHECK(saved == doctest::Approx(0.02 + 33554432 / 47e6 - 0.01 - 33554432 / 450e6));
  // An all-to-all: T·k·h·e·(ep-1)/ep = 4096 · 2 · 4096 · 2 · 7/8 = 58.7 MB, two in F per layer:
  // 2 · (0.02 + 1.249) ms across against 2 · (0.01 + 0.130) ms inside. A stage of 4 layers pays
  // 4 · 2.258 = 9.03 ms more in F under tp-pp-dp, and as much in B: the experts' network costs
  // fourteen times what the pipeline's saves, so Megatron's order is the one to keep here.
  const PieceWork layer = layer_work(m, t);
  CHECK(layer.all_to_all_bytes == doctest::Approx(4096.0 * 2 * 4096 * 2 * 7 / 8));
  const double per_layer = all_to_all_ms(layer, h100.inter_node).f_ms - all_to_all_ms(layer, h100.intra_node).f_ms;
  CHECK(per_layer == doctest::Approx(2 * (0.02 + 58720256 / 47e6 - 0.01 - 58720256 / 450e6)));
  for (std::size_t s = 1; s < 7; ++s) {  // the middle stages, 4 layers each
    CHECK(stages.costs.stages[s].f_ms - megatron.costs.stages[s].f_ms == doctest::Approx(4 * per_layer));
    CHECK(stages.costs.stages[s].b_ms - megatron.costs.stages[s].b_ms == doctest::Approx(4 * per_layer));
  }
  CHECK(4 * per_layer > 10 * saved);
  // The non-expert weights' gradients: replicas {8p .. 8p + 7} in one node under tp-dp-pp, spread
  // over all nodes under tp-pp-dp. The experts, one replica each (dp / ep = 1), reduce nothing.
  CHECK(stages.costs.devices[1].optimizer_ms > megatron.costs.devices[1].optimizer_ms);
}

TEST_CASE("DualPipe's overlap is applied once, from the stages' final times") {
  // Under sharded gradients each W carries its reduce-scatter; the FB pair must take the W that
  // the simulator will see, and only once (f_and_b_ms replaces the sum, it does not add to it).
  ModelConfig m = tiny_moe();
  m.layers = 4;
  TrainingSettings t = tiny_training(2);
  t.sharding = Sharding::Gradients;
  const GpuSpec& h100 = gpu_named("h100");
  const std::vector<int> vee = vee_placement(2);
  const Layout layout = parse_layout("E,t|t|t|t,H", 4, "test");
  const AnalyticProfile p = analytic_profile(m, t, h100, {}, layout, {vee, 2, 2, 8});
  const GroupLinks links = group_links(h100, {1, 2, 2, 2, 8, RankOrder::TpDpPp});
  const std::vector<PieceWork> work = stage_work(m, t, layout);
  for (std::size_t s = 0; s < 4; ++s) {
    const std::size_t other = 3 - s;  // the V: stages s and 3 - s share a device
    REQUIRE(p.costs.stages[s].f_and_b_ms.has_value());
    // The all-to-alls hold the default 20 of the H100's 132 SMs beside the compute.
    const std::optional<double> once =
        overlapped_f_and_b_ms(p.costs.stages[s], all_to_all_ms(work[s], links.experts), p.costs.stages[other],
                              all_to_all_ms(work[other], links.experts), 20.0 / 132);
    CHECK(*p.costs.stages[s].f_and_b_ms == doctest::Approx(*once));
  }
}

TEST_CASE("parallel folding: ep 32 over tp 2 x dp 16 at etp 1, the experts unreplicated (edp 1)") {
  // Qwen3-235B-A22B's layout (tp 2, pp 8 on 256 H100: dp 16, ep 32 at expert tensor parallelism
  // 1) on the tiny model given 32 experts: each stage's 32 ranks hold one expert each.
  ModelConfig m = tiny_moe();
  m.moe.experts = 32;
  TrainingSettings t = tiny_training(32);
  t.tp = 2;
  t.etp = 1;
  t.sharding = Sharding::Optimizer;
  const GpuSpec& h100 = gpu_named("h100");
  const std::vector<int> one{0};
  const Layout layout = parse_layout("E,t*2,H", 2, "test");
  const AnalyticProfile p = analytic_profile(m, t, h100, {}, layout, {one, 1, 16, 8});
  // Per layer and rank: one expert of 3 x 64 x 32 = 6,144 whole (etp 1); the attention's 12,288
  // and Qwen2's Q, K and V biases 128 over tp 2, the router 64 x 32 = 2,048, the shared expert
  // 9,216 / 2, its gate 64 and the norms 128: 13,056. Embedding 100 x 64 / 2 = 3,200, head 3,200 + 64. The experts are
  // held once (edp = 2 x 16 / (1 x 32) = 1): 18 bytes; the rest over dp 16: 6 + 12/16.
  const double dense = 3200 + 2 * 13056 + 3264, expert = 2 * 6144;
  CHECK(p.costs.devices[0].static_memory_bytes == Bytes(dense * (6 + 12.0 / 16) + expert * 18));
  // At Megatron's default etp (= tp 2) the 64 ranks an expert group needs do not fit the stage's 32.
  t.etp = 0;
  CHECK(test::error_of([&] {
          (void)analytic_profile(m, t, h100, {}, layout, {one, 1, 16, 8});
        }) ==
        "--etp 2 x --ep 32: must divide tp x cp x dp = 32, the ranks of a pipeline stage the expert groups fold over");
}

TEST_CASE("expert tensor parallelism: the routed tokens gathered over etp, the products the same per rank") {
  // tp 2, s 16 x b 2: each rank routes its 16 tokens' 32 copies (k 2). At etp 2 the pair gathers
  // 64 rows of h 64 for experts split two ways; at etp 1 each rank keeps its 32 for whole experts.
  const ModelConfig m = tiny_moe();
  TrainingSettings t = tiny_training(2);
  t.tp = 2;
  const PieceWork two = layer_work(m, t);  // etp = tp = 2
  t.etp = 1;
  const PieceWork one = layer_work(m, t);
  // The all-to-all: 32 copies x 64 x 2 bytes, half to the other rank: 2,048. The gather beside it:
  // (etp - 1)/etp of the 64 gathered rows x 64 x 2 bytes = 4,096 at etp 2, none at etp 1.
  CHECK(two.all_to_all_bytes == 2048);
  CHECK(two.expert_gather_bytes == 4096);
  CHECK(one.expert_gather_bytes == 0);
  // The expert products are 6 x 32 x 64 x 32 per rank either way; the parameters differ by etp.
  CHECK(two.f_flops == one.f_flops);
  CHECK(one.expert_params == 2 * two.expert_params);
  // F keeps the experts' gathered inputs, 64 (etp 2) or 32 rows of 64 x 2 bytes.
  CHECK(two.activation_bytes - one.activation_bytes == (64 - 32) * 64 * 2);
  // The attention keeps its two collectives each way; the routed block's replace the MLP's, but
  // this model's shared expert, a tensor-parallel MLP, keeps them: 4 in F.
  CHECK(two.f_collectives == 4);
  ModelConfig routed_only = m;
  routed_only.moe.shared_ffn = 0;
  routed_only.moe.shared_gate = false;
  CHECK(layer_work(routed_only, t).f_collectives == 2);
}

TEST_CASE("a capacity factor: every expert takes cf times its balanced share, padded or dropped to it") {
  // Megatron's --moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity: capacity =
  // cf x T·k/E rows an expert. Under balanced routing the rank's 64 routed copies become 80 at cf
  // 1.25 (padding) and 32 at 0.5 (half dropped): the expert products, the all-to-all's bytes and
  // the experts' activations scale with them; the router and the shared expert do not.
  const ModelConfig m = tiny_moe();
  TrainingSettings t = tiny_training(2);
  const PieceWork dropless = layer_work(m, t);
  t.moe_capacity_factor = 1.25;
  const PieceWork padded = layer_work(m, t);
  t.moe_capacity_factor = 0.5;
  const PieceWork dropped = layer_work(m, t);
  // The experts' products: 6 x rows x 64 x 32, 786,432 at 64 rows (the test above).
  CHECK(padded.f_flops - dropless.f_flops == doctest::Approx(0.25 * 786'432));
  CHECK(dropless.f_flops - dropped.f_flops == doctest::Approx(0.5 * 786'432));
  CHECK(padded.all_to_all_bytes == doctest::Approx(1.25 * dropless.all_to_all_bytes));
  // a_F's routed part: the experts' inputs rows x 64 x 2, their SwiGLU's input and product
  // 3 x rows x 32 x 2 and each row's fp32 weight: 324 bytes a row, 16 more rows at cf 1.25.
  CHECK(padded.activation_bytes - dropless.activation_bytes == 16 * 324);
  t.moe_capacity_factor = -1;
  CHECK(test::error_of([&] { (void)layer_work(m, t); }).starts_with("--moe-capacity-factor"));
}

TEST_CASE("the experts' element-wise traffic: the routing's copies, and SwiGLU's as a dense MLP's") {
  // T = 32 tokens route 64 copies; the experts' SwiGLU runs on 64 x 32 elements, the shared
  // expert's on 32 x 48: 3584 in all, 6 bytes each forward and 10 backward fused (bf16). The
  // rest moves the router's fp32 softmax and top-k 2*32*4*4 = 1024, the dispatch's copies
  // 2*64*64*2 = 16384, the combine (64 + 32)*64*2 = 12288 and the shared expert's add
  // 3*32*64*2 = 12288: 41984 forward, twice that backward.
  TrainingSettings t = tiny_training(1);
  const PieceWork fused = moe_mlp_work(tiny_moe(), t);
  CHECK(fused.f_bytes == 41'984.0 + 6 * 3584.0);
  CHECK(fused.b_bytes == 2 * 41'984.0 + 10 * 3584.0);
  // Eager, SiLU and the product apart: 10 and 18 bytes an element.
  t.elementwise = Elementwise::Eager;
  const PieceWork eager = moe_mlp_work(tiny_moe(), t);
  CHECK(eager.f_bytes - fused.f_bytes == 4 * 3584.0);
  CHECK(eager.b_bytes - fused.b_bytes == 8 * 3584.0);
  // Autograd keeps SiLU's output beside its input and up: 2 more bytes an element.
  CHECK(eager.activation_bytes - fused.activation_bytes == 2 * 3584);
}

TEST_CASE("GPT-OSS's experts: the clamp before their activation and their weighted bias, op by op") {
  ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/gpt-oss-120b.json");
  CHECK(m.moe.activation_clamp == 7.0);  // its config.json's swiglu_limit
  CHECK(m.moe.biases);
  TrainingSettings t;
  t.seq = 4096;  // 4096 tokens, 4 of 128 experts each: 16384 routed copies, bf16
  const PieceWork gpt_oss = moe_mlp_work(m, t);
  ModelConfig plain = m;
  plain.moe.activation_clamp = 0;
  plain.moe.biases = false;
  const PieceWork without = moe_mlp_work(plain, t);
  // Per copy: the clamps and the join read and write the 2 x 2880-wide product output (4e an
  // element) and back 5e; they keep it (e). The bias: 6e an element of the 2880-wide output
  // each way (its product with the probability, the add, the join; e = 2).
  const double routed = 4096.0 * 4;
  CHECK(gpt_oss.f_bytes - without.f_bytes == doctest::Approx(routed * (8.0 * 5760 + 12.0 * 2880)));
  CHECK(gpt_oss.b_bytes - without.b_bytes == doctest::Approx(routed * (10.0 * 5760 + 12.0 * 2880)));
  CHECK(double(gpt_oss.activation_bytes - without.activation_bytes) == doctest::Approx(routed * 2.0 * 5760));
}
