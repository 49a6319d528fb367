// What a collective hidden under compute still costs (docs/costs.md, "Devices, optimizer and
// transfers"): NCCL's 16 thread blocks each hold an SM (NVIDIA/nccl issue #689), so the compute
// beside the hidden part runs on the card's other SMs.
#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/collective_contention.hpp"
#include "io/model_config_json.hpp"
#include "model/placement.hpp"

using namespace pipeplan;

TEST_CASE("the hidden part of a collective costs its time times 16 of the card's SMs") {
  const GpuSpec& h100 = gpu_named("h100");  // 132 SMs
  // 10 ms of a collective, 4 shown on the stream: the other 6 take 6 x 16/132 = 0.7273 ms.
  CHECK(hidden_collective_ms(10, 4, h100) == doctest::Approx(6.0 * 16 / 132));
  CHECK(hidden_collective_ms(10, 4, h100) == doctest::Approx(0.72727).epsilon(1e-4));
  // Wholly shown: nothing hides, nothing is taken; an A100 (108 SMs) loses more a hidden ms.
  CHECK(hidden_collective_ms(10, 10, h100) == 0.0);
  CHECK(hidden_collective_ms(1, 0, gpu_named("a100-80gb")) == doctest::Approx(16.0 / 108));
  // A card without an SM count (a test card of the table's fields alone) takes nothing.
  GpuSpec unknown = h100;
  unknown.sms = 0;
  CHECK(hidden_collective_ms(10, 0, unknown) == 0.0);
}

TEST_CASE("Megatron's overlapped reduction and gather: what hides under the compute slows it") {
  // tiny-llama on one device, its optimizer sharded over 4 replicas on a 1000 GB/s, 0.001 ms
  // link, in buckets of 40000 parameters (gradient_buckets.hpp). They close in backward order:
  // the head and layer 7 (43456), layers 6 and 5, 4 and 3, 2 and 1 (73984 each), layer 0 and the
  // embedding (43392), each reduce-scattering 3/4 of 4 bytes a parameter and gathering 3/4 of 2
  // after one latency. The last bucket is reduced after the backward and gathered before the
  // forward; every other one hides under a layer's compute (the layers last longer than a
  // bucket's latency and bytes). Hidden, each holds 16 of the card's 160 SMs: a tenth of it
  // joins the step.
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.sharding = Sharding::Optimizer;
  t.cuda_graphs = CudaGraphs::Full;  // the device's times alone (host_launch.hpp)
  t.overlap_grad_reduce = true;
  t.overlap_param_gather = true;
  t.bucket_params = 40000;
  const Layout layout = parse_layout("E,t*8,H", 8, "x");
  const std::vector<int> one{0};
  const double p = 6400 + 8 * 36992 + 6464;
  const double adam = p * 30 / 4 / 0.7e12 * 1e3;
  GpuSpec gpu{
      "round", "test card", 100.0, 100.0, 10.0, Bytes{1} << 34, 1000.0, 8, {"link", 1000, 0.001}, {"net", 10.0, 0.05},
      0};
  gpu.sms = 160;
  const AnalyticProfile a = analytic_profile(m, t, gpu, {}, layout, {one, 1, 4, 8});
  const auto reduce = [](double params) { return 0.001 + 0.75 * 4 * params / 1e12 * 1e3; };
  const auto gather = [](double params) { return 0.001 + 0.75 * 2 * params / 1e12 * 1e3; };
  const double all = 5 * 0.001 + 0.75 * 4 * p / 1e9 + 5 * 0.001 + 0.75 * 2 * p / 1e9;
  const double shown = reduce(43392) + gather(43392);
  // Ten pieces, the eight layers the longest: each outlasts a bucket's collective.
  REQUIRE(a.costs.stages[0].f_ms / 10 > 2 * gather(73984));
  REQUIRE((a.costs.stages[0].b_ms + a.costs.stages[0].w_ms) / 10 > 2 * reduce(73984));
  CHECK(a.costs.devices[0].optimizer_ms == doctest::Approx(adam + shown + (all - shown) * 0.1));
  // Without the overlaps the step waits for both, one bucket, and nothing runs beside them.
  t.overlap_grad_reduce = false;
  t.overlap_param_gather = false;
  t.bucket_params = 0;
  const AnalyticProfile waits = analytic_profile(m, t, gpu, {}, layout, {one, 1, 4, 8});
  CHECK(waits.costs.devices[0].optimizer_ms == doctest::Approx(adam + reduce(p) + gather(p)));
}
