#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <vector>

#include "calibrate/layer_gemms.hpp"
#include "calibrate/link_fit.hpp"
#include "calibrate/replay_program.hpp"
#include "calibrate/sample_stats.hpp"
#include "lower/lowering.hpp"
#include "plan/piece_work.hpp"
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

TEST_CASE("the link fit recovers a known latency and bandwidth") {
  // 0.02 ms + bytes / 25 GB/s, sizes 8 B to 1 GiB by powers of 4: exact samples give the line.
  std::vector<TransferSample> exact;
  for (double bytes = 8; bytes <= 1073741824.0; bytes *= 4) exact.push_back({bytes, 0.02 + bytes / 25e9 * 1e3});
  LinkFit fit = fit_link(exact);
  CHECK(fit.latency_ms == doctest::Approx(0.02).epsilon(1e-6));
  CHECK(fit.bandwidth_gb_per_s == doctest::Approx(25.0).epsilon(1e-9));
  CHECK(fit.r_squared == doctest::Approx(1.0));
  // +-1% alternating noise keeps the bandwidth within 1%.
  std::vector<TransferSample> noisy = exact;
  for (std::size_t i = 0; i < noisy.size(); ++i) noisy[i].ms *= i % 2 == 0 ? 1.01 : 0.99;
  CHECK(fit_link(noisy).bandwidth_gb_per_s == doctest::Approx(25.0).epsilon(0.01));
  // Interpolation between 1 MiB and 4 MiB, halfway.
  CHECK(interpolate_ms(exact, 2.5 * 1048576) == doctest::Approx(0.02 + 2.5 * 1048576 / 25e9 * 1e3));
  std::vector<TransferSample> one_size = {{100, 1}, {100, 2}};
  CHECK(test::error_of([&] { (void)fit_link(one_size); }) == "a link fit needs transfers of at least two sizes");
  std::vector<TransferSample> shrinking = {{100, 2}, {200, 1}};
  CHECK(test::error_of([&] { (void)fit_link(shrinking); }).rfind("the transfer times do not grow", 0) == 0);
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
  CHECK(test::error_of([&] { run_replay(program, transport, &transport, [](int, const Op&) {}); })
            .rfind("deadlock: every rank that has not finished waits for a peer", 0) == 0);
}
