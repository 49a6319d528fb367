// Context parallelism: Megatron-LM's ring attention (docs/costs.md, "Context parallelism"), its
// per-rank work and memory and its exposed K and V exchange, derived by hand.
#include <doctest/doctest.h>

#include <algorithm>

#include "estimate/analytic_profile.hpp"
#include "estimate/context_parallel.hpp"
#include "estimate/piece_gemms.hpp"
#include "io/model_config_json.hpp"
#include "model/placement.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

ModelConfig llama70b() {
  return read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/llama-3-70b.json");
}

TrainingSettings long_sequence(int cp, int tp = 1) {
  TrainingSettings t;
  t.seq = 16384;
  t.cp = cp;
  t.tp = tp;
  return t;
}

}  // namespace

TEST_CASE("the ring's exposed time: each step's transfer beside one step's attention, only the excess shows") {
  // cp 4: 3 steps. K and V of the rank's chunk 1 GB over 100 GB/s without latency: 10 ms a forward
  // step, 20 ms a backward step (K, V and their gradients). The attention core takes 8 ms in F
  // over the 4 equal steps (the load balance), 2 ms a step: 3 x (10 - 2) = 24 ms show. B's core
  // 20 ms, 5 a step: 3 x (20 - 5) = 45 ms.
  ContextRing ring;
  ring.steps = 3;
  ring.kv_bytes = 1e9;
  const LinkSpec link{"test", 100.0, 0.0};
  RingMs ms = ring_exposed_ms(ring, 8.0, 20.0, link);
  CHECK(ms.f_ms == doctest::Approx(24.0));
  CHECK(ms.b_ms == doctest::Approx(45.0));
  // A core of 48 ms (12 a step) outlasts each 10 ms transfer: nothing shows in F; B's 80 ms (20 a
  // step) exactly covers its 20 ms transfers.
  ms = ring_exposed_ms(ring, 48.0, 80.0, link);
  CHECK(ms.f_ms == 0.0);
  CHECK(ms.b_ms == doctest::Approx(0.0));
  // Under full recompute the backward runs the forward's ring once more.
  ring.forward_again = true;
  CHECK(ring_exposed_ms(ring, 8.0, 20.0, link).b_ms == doctest::Approx(45.0 + 24.0));
  // Without context parallelism there is no ring.
  CHECK(ring_exposed_ms(ContextRing{}, 8.0, 20.0, link).f_ms == 0.0);
}

TEST_CASE("a layer's ring: the rank's K and V, s/cp tokens of its kv heads, and its core's FLOPs") {
  const ModelConfig m = llama70b();  // h 8192, 64 heads, 8 kv heads of 128: hk = 1024
  const PieceWork w = layer_work(m, long_sequence(4, 2));
  // 16384 / 4 = 4096 tokens, K and V 2 x 1024 wide, bf16, over tp 2: 4096 x 2048 x 2 / 2 bytes.
  CHECK(w.ring.steps == 3);
  CHECK(w.ring.kv_bytes == 4096.0 * 2048 * 2 / 2);
  // The core per rank: 4 b s^2 h x the causal block share (128 blocks: 129/256) / cp / tp; its
  // backward 2.5 times that (flash attention's recompute of Q K^T).
  const double core = 4.0 * 16384 * 16384 * 8192 * (129.0 / 256) / 4 / 2;
  CHECK(w.ring.f_core_flops == doctest::Approx(core));
  CHECK(w.ring.b_core_flops == doctest::Approx(2.5 * core));
  // The merges: 3 later steps each read the running output and the step's and write one, 3 x
  // 2048 tokens (a tp rank's share of 4096) x 8192 x 2 bytes; B adds each step's dQ (8192 wide)
  // and dK, dV (2048) into fp32, read and written: 8 bytes an element.
  CHECK(w.ring.merge_f_bytes == 3.0 * 3 * 2048 * 8192 * 2);
  CHECK(w.ring.merge_b_bytes == 3.0 * 8 * 2048 * (8192 + 2048));
  CHECK(layer_work(m, long_sequence(1)).ring.steps == 0);
}

TEST_CASE("cp divides each rank's FLOPs, bytes and activations by cp, its tokens and its core alike") {
  const ModelConfig m = llama70b();
  const PieceWork one = layer_work(m, long_sequence(1));
  const PieceWork four = layer_work(m, long_sequence(4));
  // Every token-wise product and kernel is over s/cp tokens and the core is the whole causal core
  // over cp (the load-balanced chunks): every per-rank figure is cp 1's over 4.
  CHECK(four.f_flops == doctest::Approx(one.f_flops / 4));
  CHECK(four.b_flops == doctest::Approx(one.b_flops / 4));
  CHECK(four.w_flops == doctest::Approx(one.w_flops / 4));
  CHECK(four.f_bytes == doctest::Approx(one.f_bytes / 4));
  CHECK(double(four.activation_bytes) == doctest::Approx(double(one.activation_bytes) / 4));
  CHECK(double(four.w_activation_bytes) == doctest::Approx(double(one.w_activation_bytes) / 4));
  CHECK(four.params == one.params);  // weights are replicated over cp
  const PieceWork head1 = head_work(m, long_sequence(1)), head4 = head_work(m, long_sequence(4));
  CHECK(head4.f_flops == doctest::Approx(head1.f_flops / 4));
  CHECK(double(head4.activation_bytes) == doctest::Approx(double(head1.activation_bytes) / 4));
  // The products' shapes: 4096 rows a rank instead of 16384.
  CHECK(layer_linear_gemms(m, long_sequence(4), {}).f.front().m == 4096);
  // The model FLOPs of a micro-batch, every rank together, do not change.
  const GpuSpec& h100 = gpu_named("h100");
  ModelConfig two = m;
  two.layers = 2;
  const std::vector<int> one_device{0};
  const Layout layout = parse_layout("E,t*2,H", 2, "test");
  const AnalyticProfile p1 = analytic_profile(two, long_sequence(1), h100, {}, layout, {one_device, 1, 1, 8});
  const AnalyticProfile p4 = analytic_profile(two, long_sequence(4), h100, {}, layout, {one_device, 1, 1, 8});
  CHECK(p4.model_flops_per_microbatch == doctest::Approx(p1.model_flops_per_microbatch));
  // A pipeline transfer carries the rank's s/cp tokens: 4096 x 8192 x 2 bytes.
  CHECK(p4.costs.transfer.bytes == 4096 * 8192 * 2);
}

TEST_CASE("the ring's time is in F and B, over the context-parallel group's link") {
  const ModelConfig m = llama70b();
  TrainingSettings t;
  t.seq = 2048;
  t.cp = 4;
  const GpuSpec& h100 = gpu_named("h100");  // NVLink 450 GB/s, 0.01 ms; network 47 of 50 GB/s, 0.02 ms
  const PieceWork w = layer_work(m, t);
  // cp 4 on 1-GPU nodes: every ring spans four nodes and takes the network; on 8-GPU nodes NVLink.
  const GroupLinks across = group_links(h100, {1, 1, 1, 1, 1, RankOrder::TpDpPp, 4});
  const GroupLinks inside = group_links(h100, {1, 1, 1, 1, 8, RankOrder::TpDpPp, 4});
  CHECK(across.context.name == h100.inter_node.name);
  CHECK(inside.context.name == h100.intra_node.name);
  // A step sends 512 tokens x 2048 x 2 bytes = 2,097,152 bytes: 0.02 + 0.044620 ms over the
  // network (47 GB/s reached of 50), 0.01 + 0.004660 ms over NVLink. The core, 4 x 2048^2 x 8192 x 17/32 (16 blocks of
  // 128: 17/32 computed) / 4 = 1.8254e10 FLOPs at flash attention's forward fraction, cuDNN's 315
  // of 989 at head dimension 128 and a rank's chunk of 512 tokens (5/4 of it per block counted:
  // the figure counts 512^2/2 where the kernel computes 10 blocks of 16), of the 989.4 TFLOP/s at
  // the H100's sustained share of the benchmark's clock (698.6 / 794.5), takes 0.052701 ms,
  // 0.013175 a step; B's 2.5 times the FLOPs at the backward's 305 of 989, 0.034018 a step. F shows
  // 3 x (send - step_f), B 3 x (send twice the bytes - step_b), where positive: over NVLink B's
  // 0.01932 ms sends hide under its steps.
  // Beside the ring, the merges: F 3 x 3 x 512 x 8192 x 2 bytes, B 3 x 8 x 512 x (8192 + 2048),
  // at 0.7 of 3350 GB/s.
  const double core = 4.0 * 2048 * 2048 * 8192 * 17 / 32 / 4;
  const double sustained = 698.6 / 794.5;
  const double step_f = core / (989.4e12 * 315 / 989 * 5 / 4 * sustained) * 1e3 / 4;
  const double step_b = 2.5 * core / (989.4e12 * 305 / 989 * 5 / 4 * sustained) * 1e3 / 4;
  const auto send = [](const LinkSpec& l, double bytes) {
    return l.latency_ms + bytes / (l.bandwidth_gb_per_s * l.send_efficiency * 1e6);
  };
  const double kv = 512.0 * 2048 * 2;
  CHECK(step_f == doctest::Approx(0.013175).epsilon(1e-3));
  CHECK(step_b == doctest::Approx(0.034018).epsilon(1e-3));
  const double merge_f = 3.0 * 3 * 512 * 8192 * 2 / (3350e9 * 0.7) * 1e3;
  const double merge_b = 3.0 * 8 * 512 * (8192 + 2048) / (3350e9 * 0.7) * 1e3;
  PieceWork without_ring = w;
  without_ring.ring = {};
  for (const GroupLinks* links : {&across, &inside}) {
    const StageCost with = piece_cost(w, h100, {}, t, links);
    const StageCost bare = piece_cost(without_ring, h100, {}, t, links);
    CHECK(with.f_ms - bare.f_ms == doctest::Approx(3 * std::max(0.0, send(links->context, kv) - step_f) + merge_f));
    CHECK(with.b_ms - bare.b_ms == doctest::Approx(3 * std::max(0.0, send(links->context, 2 * kv) - step_b) + merge_b));
    CHECK(with.w_ms == bare.w_ms);
  }
  // Over the network: 3 x (0.064620 - 0.013175) = 0.15434 ms a layer's forward waits for the
  // ring, 0.0322 ms it merges.
  CHECK(piece_cost(w, h100, {}, t, &across).f_ms - piece_cost(without_ring, h100, {}, t, &across).f_ms ==
        doctest::Approx(0.15434 + 0.0322).epsilon(1e-3));
}

TEST_CASE("context parallelism refuses what it cannot split, by name") {
  TrainingSettings t;
  t.seq = 4096;
  t.cp = 3;  // 4096 is not a multiple of 6
  CHECK(test::error_of([&] { check_context_parallel(t); }) ==
        "--cp 3: the sequence (4096 tokens) must divide into 2 x cp = 6 chunks, two on each rank for the causal load "
        "balance");
  t.cp = 2;
  t.flash_attention = false;
  CHECK(test::error_of([&] { check_context_parallel(t); }).starts_with("--cp 2: context parallelism needs flash"));
  t.flash_attention = true;
  check_context_parallel(t);
  t.cp = 0;
  CHECK(test::error_of([&] { check_context_parallel(t); }) == "--cp 0: context parallelism must be at least 1");
}
