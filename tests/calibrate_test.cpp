#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "calibrate/card_match.hpp"
#include "calibrate/fill_values.hpp"
#include "calibrate/layer_gemms.hpp"
#include "calibrate/replay_program.hpp"
#include "calibrate/sample_stats.hpp"
#include "calibrate/throttle_reasons.hpp"
#include "estimate/piece_work.hpp"
#include "io/model_config_json.hpp"
#include "lower/lowering.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("a layer's GEMMs are the products docs/costs.md counts, with their shapes") {
  // The tiny Llama of piece_work_test.cpp: h = 64, hk = 32, f = 128, a = 4; s = 16, b = 2.
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  t.flash_attention = false;
  const std::vector<Gemm> gemms = layer_gemms(m, t);
  double f = 0, b = 0, w = 0;
  for (const Gemm& g : gemms) (g.phase == Phase::F ? f : g.phase == Phase::B ? b : w) += g.flops();
  const PieceWork work = layer_work(m, t);
  CHECK(f == work.f_flops);
  CHECK(b == work.b_flops);
  CHECK(w == work.w_flops);
  // QKV forward: 32 tokens x (64 + 2*32) outputs x 64 inputs; its weight gradient 128 x 64 x 32.
  CHECK(gemms[0].name == "qkv");
  CHECK((gemms[0].m == 32 && gemms[0].n == 128 && gemms[0].k == 64));
  CHECK((gemms[2].phase == Phase::W && gemms[2].m == 128 && gemms[2].n == 64 && gemms[2].k == 32));
  // The scores per head: 16 x 16 x 16 (d = 64 / 4), 2 x 4 heads.
  const Gemm& scores = gemms[12];
  CHECK(scores.name == "attention_scores");
  CHECK((scores.m == 16 && scores.n == 16 && scores.k == 16 && scores.batch == 8));
  t.tp = 2;
  double f2 = 0;
  for (const Gemm& g : layer_gemms(m, t)) f2 += g.phase == Phase::F ? g.flops() : 0;
  CHECK(f2 == f / 2);  // every product splits over the two ranks
  CHECK(head_gemms(m, t)[0].flops() == 2.0 * 32 * 64 * 50);
}

TEST_CASE("statistics of timings: median, percentiles by interpolation, CV") {
  // 1..10: median 5.5; p10 at position 0.9 -> 1.9; p90 at 8.1 -> 9.1; mean 5.5; sample standard
  // deviation sqrt(82.5 / 9) = 3.0277, CV 0.5505.
  std::vector<double> v = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  SampleStats s = stats_of(v);
  CHECK(s.count == 10);
  CHECK(s.median == doctest::Approx(5.5));
  CHECK(s.p10 == doctest::Approx(1.9));
  CHECK(s.p90 == doctest::Approx(9.1));
  CHECK(s.mean == doctest::Approx(5.5));
  CHECK(s.cv == doctest::Approx(std::sqrt(82.5 / 9) / 5.5));
  std::vector<double> one = {2.5};
  CHECK(stats_of(one).cv == 0);
  CHECK(stats_of(one).p90 == 2.5);
  CHECK(test::error_of([] { (void)stats_of({}); }) == "statistics of no samples");
  std::vector<double> bad = {1, NAN};
  CHECK(test::error_of([&] { (void)stats_of(bad); }) == "a timing sample is not a finite number");
}

TEST_CASE("replay's per-rank order runs every generator through a fake transport") {
  for (const Generator& g : generators()) {
    if (g.name == "zb") continue;  // needs a limit; zb-1p and zb-2p stand for it
    for (int p : {2, 3, 4}) {
      const Schedule s = test::generated(std::string(g.name), p, 2 * p);
      const CostModel c = test::uniform(s, 1, 1.2, 0.8);
      const ReplayProgram program = replay_program(s, c);
      FakeTransport transport(p);
      std::atomic<long> ops{0};
      CHECK_NOTHROW(run_replay(program, transport, &transport, [&](int, const Op&) { ++ops; }));
      CHECK(ops.load() == static_cast<long>(s.op_count()));
      // Every cross-device dependency crossed once.
      long long crossings = 0;
      for (const auto& rank : program.ranks) {
        for (const ReplayStep& step : rank) {
          for (const ReplayTransfer& t : step.group) crossings += t.comm.is_send() ? 1 : 0;
        }
      }
      CHECK(transport.completed() == crossings);
    }
  }
}

TEST_CASE("the fake transport reports a deadlocked order instead of hanging") {
  // 1F1B lowered just-before: each rank sends before it receives (docs/schedules.md).
  const Schedule s = test::generated("1f1b", 2, 2);
  const ReplayProgram program = replay_program(lower(s, LowerPolicy::JustBefore));
  FakeTransport transport(2);
  CHECK(test::error_of([&] {
          run_replay(program, transport, &transport, [](int, const Op&) {});
        }).rfind("deadlock: every rank that has not finished waits for a peer", 0) == 0);
}

TEST_CASE("cuBLAS calls in Megatron's transposes: TN forward, NN input gradient, NT weight gradient") {
  // The tiny Llama's QKV over 32 tokens: 64 inputs, 128 outputs (the first test's shapes).
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  const std::vector<Gemm> gemms = layer_gemms(m, t);
  // Y = X W^T: column-major Y^T (128 x 32) = W (op T of the stored 64 x 128) X^T (64 x 32).
  const CublasCall f = cublas_call(gemms[0]);
  CHECK((f.transa && !f.transb));
  CHECK((f.m == 128 && f.n == 32 && f.k == 64 && f.lda == 64 && f.ldb == 64 && f.ldc == 128));
  // dX = dY W: dX^T (64 x 32) = W^T (stored 64 x 128, as is) dY^T (128 x 32).
  const CublasCall b = cublas_call(gemms[1]);
  CHECK((!b.transa && !b.transb));
  CHECK((b.m == 64 && b.n == 32 && b.k == 128 && b.lda == 64 && b.ldb == 128 && b.ldc == 64));
  // dW = dY^T X: dW^T (64 x 128) = X^T (stored 64 x 32, as is) dY (op T of the stored 128 x 32).
  const CublasCall w = cublas_call(gemms[2]);
  CHECK((!w.transa && w.transb));
  CHECK((w.m == 64 && w.n == 128 && w.k == 32 && w.lda == 64 && w.ldb == 128 && w.ldc == 64));
}

TEST_CASE("flash attention's backward runs five products, QK^T recomputed first") {
  // docs/costs.md: the backward of the core is 2 x its forward, 2.5 x with flash attention.
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  TrainingSettings t;
  t.seq = 16;
  t.micro_batch = 2;
  t.flash_attention = true;
  int core_backward = 0;
  double b = 0;
  for (const Gemm& g : layer_gemms(m, t)) {
    core_backward += g.phase == Phase::B && g.batch > 1 ? 1 : 0;
    b += g.phase == Phase::B ? g.flops() : 0;
  }
  CHECK(core_backward == 5);
  CHECK(b == layer_work(m, t).b_flops);
}

TEST_CASE("fill values are hashed: uniform from -1 to 1, full significands, one stream per buffer") {
  // The old fill, (i % 17 - 8) / 64, had 17 values; of 4096 of these no more than a few share
  // one of the 2^24 values (4091 distinct), and more than 1000 stay distinct in bf16 (a float's
  // top 16 bits).
  std::set<float> values;
  std::set<std::uint16_t> as_bf16;
  double sum = 0;
  bool in_range = true;
  constexpr int n = 1 << 16;
  for (std::uint64_t i = 0; i < n; ++i) {
    const float v = fill_value(i, 0);
    in_range = in_range && v >= -1.0f && v < 1.0f;
    sum += v;
    if (i < 4096) {
      values.insert(v);
      std::uint32_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      as_bf16.insert(static_cast<std::uint16_t>(bits >> 16));
    }
  }
  CHECK(in_range);
  CHECK(values.size() > 4000);
  CHECK(as_bf16.size() > 1000);
  // The mean of 65536 uniform values has a standard deviation of 0.577 / 256 = 0.00226.
  CHECK(std::abs(sum / n) < 4 * 0.00226);
  CHECK(fill_value(7, 0) != fill_value(7, 1));  // A and B of a product differ
}

TEST_CASE("throttle reasons by name, and which slow a busy card") {
  // 0x1 idle, 0x4 software power cap, 0x40 hardware thermal slowdown; bit 12 is unknown.
  CHECK(throttle_reason_names(0x1 | 0x4 | 0x40 | (1ULL << 12)) ==
        std::vector<std::string>{"gpu_idle", "sw_power_cap", "hw_thermal_slowdown", "bit 12"});
  CHECK(throttle_reason_names(0).empty());
  CHECK(slowing_reasons(0x1 | 0x2 | 0x100) == 0);
  CHECK(slowing_reasons(0x1 | 0x4) == 0x4);
}

TEST_CASE("match_card tells the SXM cards of the table from PCIe and NVL ones") {
  constexpr std::size_t gib = std::size_t{1} << 30;
  CHECK(match_card("NVIDIA H100 80GB HBM3", 80 * gib, "").spec->name == "h100");
  CHECK(match_card("NVIDIA H200", 141 * gib, "").spec->name == "h200");
  CHECK(match_card("NVIDIA A100-SXM4-40GB", 40 * gib, "").spec->name == "a100-40gb");
  CHECK(match_card("NVIDIA A100-SXM4-80GB", 80 * gib, "").spec->name == "a100-80gb");
  CHECK(match_card("NVIDIA GeForce RTX 3090", 24 * gib, "").spec->name == "rtx3090");
  for (const char* other :
       {"NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H200 NVL", "NVIDIA A100-PCIE-40GB", "NVIDIA GH200 480GB"}) {
    const CardMatch c = match_card(other, 94 * gib, "");
    CHECK_MESSAGE(c.spec == nullptr, other);
    CHECK(c.note.find("give --gpu") != std::string::npos);
  }
  CHECK(match_card("NVIDIA H100 PCIe", 80 * gib, "h100").spec->name == "h100");  // --gpu wins
  // Blackwell and H800 by the names nvidia-smi gives them (docs/costs.md, "GPUs"); "GB200"
  // holds "B200", so the rack's GPU must not be taken for the HGX board's.
  constexpr std::size_t mib = std::size_t{1} << 20;
  CHECK(match_card("NVIDIA B200", 183359 * mib, "").spec->name == "b200");
  CHECK(match_card("NVIDIA GB200", 189471 * mib, "").spec->name == "gb200");
  CHECK(match_card("NVIDIA B300 SXM6 AC", 275040 * mib, "").spec->name == "b300");
  CHECK(match_card("NVIDIA GB300", 284208 * mib, "").spec->name == "gb300");
  CHECK(match_card("NVIDIA H800", 81559 * mib, "").spec->name == "h800");
  CHECK(match_card("NVIDIA GB300", 256703 * mib, "").spec == nullptr);  // the DGX Station's GB300
  CHECK(match_card("NVIDIA H800 PCIe", 81559 * mib, "").spec == nullptr);
  CHECK(match_card("NVIDIA L4", 24 * gib, "").spec == nullptr);
}

TEST_CASE("every row of the GPU table is found by its CUDA word and its memory, and by nothing else") {
  // The table is the only list of names: a new row needs no other change to be matched.
  for (const GpuSpec& g : gpu_catalog()) {
    CHECK_MESSAGE(!g.cuda_name.empty(), g.name);
    const CardMatch c = match_card("NVIDIA " + std::string(g.cuda_name), std::size_t(g.memory_bytes), "");
    CHECK_MESSAGE((c.spec != nullptr && c.spec->name == g.name), g.name);
  }
}
