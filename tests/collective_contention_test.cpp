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
  // tiny-llama on one device, its optimizer sharded over 4 replicas on a 50 GB/s, 0.01 ms link:
  // the reduce-scatter R = 0.01 + 3/4 of 4p bytes hides under the backward, the all-gather G =
  // 0.01 + 3/4 of 2p under the next forward (on a card of 160 SMs the tiny products fill whole
  // waves and last longer than either). Hidden, each holds 16 of the 160 SMs: a tenth of it
  // joins the step.
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.sharding = Sharding::Optimizer;
  t.cuda_graphs = CudaGraphs::Full;  // the device's times alone (host_launch.hpp)
  t.overlap_grad_reduce = true;
  t.overlap_param_gather = true;
  const Layout layout = parse_layout("E,t*8,H", 8, "x");
  const std::vector<int> one{0};
  const double p = 6400 + 8 * 36992 + 6464;
  const double adam = p * 30 / 4 / 0.7e12 * 1e3;
  GpuSpec gpu{
      "round", "test card", 100.0, 100.0, 10.0, Bytes{1} << 34, 1000.0, 8, {"link", 50, 0.01}, {"net", 10.0, 0.05}, 0};
  gpu.sms = 160;
  const AnalyticProfile a = analytic_profile(m, t, gpu, {}, layout, {one, 1, 4, 8});
  const double reduce = 0.01 + 0.75 * 4 * p / 50e9 * 1e3, gather = 0.01 + 0.75 * 2 * p / 50e9 * 1e3;
  const double backward = a.costs.stages[0].b_ms + a.costs.stages[0].w_ms, forward = a.costs.stages[0].f_ms;
  REQUIRE(reduce < backward);
  REQUIRE(gather < forward);
  CHECK(a.costs.devices[0].optimizer_ms == doctest::Approx(adam + (reduce + gather) * 0.1));
  // Without the overlaps the step waits for both, and nothing runs beside them.
  t.overlap_grad_reduce = false;
  t.overlap_param_gather = false;
  const AnalyticProfile waits = analytic_profile(m, t, gpu, {}, layout, {one, 1, 4, 8});
  CHECK(waits.costs.devices[0].optimizer_ms == doctest::Approx(adam + reduce + gather));
}
