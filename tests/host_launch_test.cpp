// The host's share of a layer (docs/costs.md, "Host time"), derived by hand from the two
// measurements it rests on: a te.Linear forward takes 99.66 us of a Grace CPU, a 64-expert
// grouped MLP block 1200 us forward and 2100 us backward; an x86 host takes 181.7/197.4 of that
// (one PyTorch operator call's host time on an H100 host and a GB200, PyTorch issue #187862).
#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/host_launch.hpp"
#include "estimate/moe_work.hpp"
#include "estimate/piece_gemms.hpp"
#include "io/model_config_json.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// A grouped-query attention layer with routed experts: QKV, the core, the output projection
// (3, the attention's), then the norm, the router, the dispatch preprocessing, dispatch, combine
// (5, the router and the preprocessing the router's) and one grouped MLP block.
HostCalls moe_layer_calls() {
  HostCalls c;
  c.modules = 8;
  c.attention_modules = 3;
  c.router_modules = 2;
  c.grouped_mlps = 1;
  c.waits_for_device = true;
  return c;
}

// h = 64, 4 heads, 2 key-value heads; 4 experts of width 32, k = 2, a shared expert with its gate.
ModelConfig tiny_moe() {
  return read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-qwen-moe.json");
}

TrainingSettings tiny_training() {
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  return t;
}

}  // namespace

TEST_CASE("a layer's host time: its module calls at a te.Linear's, its grouped MLP at the block's") {
  const GpuSpec& gb200 = gpu_named("gb200");
  REQUIRE(gb200.host_cpu == HostCpu::Grace);
  // Forward: 8 x 99.66 + 1200 = 1997.28 us. Backward: 8 x 99.66 x 2100/1200 + 2100 = 3495.24 us.
  const HostMs eager = host_ms(moe_layer_calls(), gb200, CudaGraphs::None);
  CHECK(eager.f_ms == doctest::Approx(1.99728));
  CHECK(eager.b_ms == doctest::Approx(3.49524));
  // Transformer Engine's graphs of the attention and the router leave 3 modules: 3 x 99.66 + 1200.
  const HostMs attn = host_ms(moe_layer_calls(), gb200, CudaGraphs::Attn);
  CHECK(attn.f_ms == doctest::Approx(1.49898));
  CHECK(attn.b_ms == doctest::Approx((3 * 99.66 * 1.75 + 2100) / 1000));
  // The router's graphs alone leave 6: 6 x 99.66 + 1200.
  CHECK(host_ms(moe_layer_calls(), gb200, CudaGraphs::MoeRouter).f_ms == doctest::Approx(1.79796));
  for (const CudaGraphs whole : {CudaGraphs::Layers, CudaGraphs::Full}) {
    const HostMs replayed = host_ms(moe_layer_calls(), gb200, whole);
    CHECK(replayed.f_ms == 0);
    CHECK(replayed.b_ms == 0);
  }
  // An HGX board's x86 host: 181.7/197.4 = 0.92047 of the Grace CPU's time.
  const GpuSpec& b200 = gpu_named("b200");
  REQUIRE(b200.host_cpu == HostCpu::X86);
  CHECK(host_ms(moe_layer_calls(), b200, CudaGraphs::None).f_ms == doctest::Approx(1.99728 * 181.7 / 197.4));
  // Full recompute runs the forward's calls again in the backward.
  HostCalls recomputed = moe_layer_calls();
  recomputed.recompute_forward = true;
  CHECK(host_ms(recomputed, gb200, CudaGraphs::None).b_ms == doctest::Approx(3.49524 + 1.99728));
}

TEST_CASE("the device waits for all of the host's time after a read of the token counts, else for what outlasts it") {
  CHECK(exposed_host_ms(2.0, 5.0, true) == 2.0);
  CHECK(exposed_host_ms(2.0, 5.0, false) == 0.0);
  CHECK(exposed_host_ms(2.0, 0.5, false) == doctest::Approx(1.5));
}

TEST_CASE("a mixture of experts' layer asks the host for its modules and waits for the token counts when dropless") {
  const ModelConfig m = tiny_moe();
  TrainingSettings t = tiny_training();
  const PieceWork dropless = layer_work(m, t, layer_kind(m, 0));
  // QKV, core, output projection; norm, router, preprocessing, dispatch, combine; the shared
  // expert's two linears.
  CHECK(dropless.host.modules == 10);
  CHECK(dropless.host.attention_modules == 3);
  CHECK(dropless.host.router_modules == 2);
  CHECK(dropless.host.grouped_mlps == 1);
  CHECK(dropless.host.waits_for_device);
  t.moe_capacity_factor = 1.0;  // padded to capacity: the shapes are known without the counts
  CHECK_FALSE(layer_work(m, t, layer_kind(m, 0)).host.waits_for_device);

  // In the piece's time: dropless, the whole host time joins F and B; padded to capacity only
  // what outlasts the tiny layer's kernels, less than all of it.
  const GpuSpec& gpu = gpu_named("h100");
  const Efficiency e;
  const HostMs host = host_ms(dropless.host, gpu, CudaGraphs::None);
  const PieceParts waits =
      piece_parts(dropless, layer_linear_gemms(m, tiny_training(), layer_kind(m, 0)), gpu, e, tiny_training());
  CHECK(waits.f.host == doctest::Approx(host.f_ms));
  CHECK(waits.b.host == doctest::Approx(host.b_ms));
  const PieceWork padded = layer_work(m, t, layer_kind(m, 0));
  const PieceParts ahead = piece_parts(padded, layer_linear_gemms(m, t, layer_kind(m, 0)), gpu, e, t);
  const double f_device = ahead.f.total() - ahead.f.host;
  CHECK(ahead.f.host == doctest::Approx(host_ms(padded.host, gpu, CudaGraphs::None).f_ms - f_device));
  CHECK(ahead.f.host < host.f_ms);
  // Replayed from one graph, the host adds nothing.
  TrainingSettings graphed = tiny_training();
  graphed.cuda_graphs = CudaGraphs::Full;
  const PieceParts replayed = piece_parts(dropless, layer_linear_gemms(m, graphed, layer_kind(m, 0)), gpu, e, graphed);
  CHECK(replayed.f.host == 0);
  CHECK(replayed.b.host == 0);
}
