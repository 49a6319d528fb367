// zbv-auto against the authors' ZB-V heuristic (zerobubble/scheduler/zbv.py), ported as
// schedules/zbv_paper_greedy: the port gives the reference's spans on the same inputs, and
// zbv-auto under post-validation is never longer on the span than the port.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <random>

#include "model/placement.hpp"
#include "schedules/builder.hpp"
#include "schedules/zbv_paper_greedy.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"
#include "validate/validator.hpp"

using namespace pipeplan;

namespace {

SimTime longest_span(const SimResult& r) {
  SimTime span = 0;
  for (const DeviceTimeline& d : r.devices) span = std::max(span, d.iterations.front().span());
  return span;
}

// Every stage (chunk) with these F, B, W ms, a_F = 100 and a_W = 25 bytes, and a transfer.
CostModel chunk_costs(int p, double f, double b, double w, double transfer) {
  return uniform_costs(2 * p, p, StageCost{f, b, w, 100, 25}, transfer);
}

// zbv-auto's longest span under post-validation, with its default limit (ZB-V's: P full stages,
// 2P chunks of 100 bytes), and its peak memory.
std::pair<SimTime, Bytes> zbv_auto(int p, int m, const CostModel& c) {
  GenerateRequest r = test::request(p, m, 2);
  r.costs = &c;
  r.objective = OptimizerMode::PostValidation;
  const SimResult result = simulate(find_generator("zbv-auto")->generate(r), c);
  Bytes peak = 0;
  for (const DeviceTimeline& d : result.devices) peak = std::max(peak, d.peak_memory);
  return {longest_span(result), peak};
}

// The authors' heuristic alone: the best of its four choices on the longest span, simulated.
std::optional<SimTime> port_span(int p, int m, const CostModel& c, Bytes limit) {
  const Schedule shape = empty_schedule("paper", test::request(p, m, 2), vee_placement(p));
  const std::vector<Bytes> limits(static_cast<std::size_t>(p), limit);
  std::optional<SimTime> best;
  for (bool b : {true, false}) {
    for (bool f : {true, false}) {
      auto pass = zbv_paper_greedy({shape, c, limits}, {b, f});
      if (!pass) continue;
      const SimTime span = longest_span(simulate(pass->schedule, c));
      if (!best || span < *best) best = span;
    }
  }
  return best;
}

}  // namespace

TEST_CASE("the port gives the authors' spans on the same inputs") {
  // The authors' zbv.py (sail-sg/zero-bubble-pipeline-parallelism at 39f2c18, PipelineGraph with
  // f_mem = 100, b_mem = -75, w_mem = -25, max_mem = None, i.e. 2P chunks; the best of
  // try_v_schedule over its four fill_b, fill_f choices, as create_schedule keeps it), run in
  // Python beside ours with the chunk costs below in ns; its span is the longest per-device
  // span of its own end times. On a wider sweep (P = 2 to 16, M = 1 to 64, four cost sets, limits
  // of P to 4P chunks) the port gives the reference's op orders exactly (docs/schedules.md).
  struct Case {
    int p, m;
    double f, b, w, transfer;
    SimTime span;  // ns, from the reference
  };
  const Case cases[] = {
      {4, 8, 1, 1, 1, 0.1, 49'400'000},                        // equal chunk costs, a transfer
      {6, 13, 1, 2, 1, 0.3, 121'400'000},                      // a heavy B
      {8, 24, 9.261, 9.043, 4.6685, 0.601, 1'186'022'500},     // Table 5's 1.5B row, per chunk
      {8, 32, 1, 1.2, 0.8, 0.1, 201'000'000},                  // the unequal costs
      {16, 64, 14.859, 14.722, 9.9635, 0.527, 5'243'972'500},  // Table 5's 6.2B row, per chunk
  };
  for (const Case& k : cases) {
    CAPTURE(k.p);
    CAPTURE(k.m);
    CHECK(port_span(k.p, k.m, chunk_costs(k.p, k.f, k.b, k.w, k.transfer), 2 * k.p * 100) == k.span);
  }
}

TEST_CASE("the port's times are the simulator's, and its schedules valid, on random per-stage costs") {
  // The search takes a pass's makespan and span without simulating it (as_early_as_possible);
  // that needs them to be exactly what the simulator gives.
  std::mt19937 rng(21);
  int planned = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int p = 2 + static_cast<int>(rng() % 7);
    const int m = 1 + static_cast<int>(rng() % (4 * static_cast<unsigned>(p)));
    CAPTURE(p);
    CAPTURE(m);
    CostModel c = chunk_costs(p, 1, 1, 1, static_cast<double>(rng() % 4) / 10);
    for (StageCost& stage : c.stages) {
      stage.f_ms = 0.5 + static_cast<double>(rng() % 10) / 10;
      stage.b_ms = 0.5 + static_cast<double>(rng() % 10) / 10;
      stage.w_ms = 0.2 + static_cast<double>(rng() % 10) / 10;
    }
    const std::vector<Bytes> limit(static_cast<std::size_t>(p),
                                   100 * (2 * p + static_cast<Bytes>(rng() % (2 * static_cast<unsigned>(p)))));
    const Schedule shape = empty_schedule("paper", test::request(p, m, 2), vee_placement(p));
    for (bool b : {true, false}) {
      for (bool f : {true, false}) {
        std::optional<GreedySchedule> pass = zbv_paper_greedy({shape, c, limit}, {b, f});
        if (!pass) continue;
        ++planned;
        REQUIRE(pass->as_early_as_possible);
        for (const Problem& problem : validate(pass->schedule, c, {limit.front()})) FAIL_CHECK(problem.message);
        const SimResult r = simulate(pass->schedule, c);
        CHECK(pass->makespan == r.makespan);
        CHECK(pass->longest_span == longest_span(r));
      }
    }
  }
  // Measured: all 240 passes plan (128 before the repairs of issue 26). On unequal per-stage
  // costs the reference's rules (written for one F, B, W time) often reach an op whose input is
  // not placed yet, where the reference fails an assertion; the port's repair lets that device
  // wait a round instead (228 plan with it). The last 12 failed in the catch-up, on a forward
  // whose memory is not there (the reference's assertion) or with nothing left to run (the
  // reference loops): the device catches up no further. With equal costs all plan.
  CHECK(planned == 240);
}

TEST_CASE("under post-validation zbv-auto is never longer on the span than the authors' ZB-V heuristic") {
  // Equal chunk costs with a transfer (where zbv-auto was 0.4% to 5% longer before the port was
  // a candidate) and Table 5's 1.5B row per chunk; ZB-V's memory.
  int strictly = 0;
  for (int p = 2; p <= 6; ++p) {
    for (int m : {p, 2 * p - 1, 3 * p + 1}) {
      for (bool paper : {false, true}) {
        CAPTURE(p);
        CAPTURE(m);
        CAPTURE(paper);
        const CostModel c = paper ? chunk_costs(p, 9.261, 9.043, 4.6685, 0.601) : chunk_costs(p, 1, 1, 1, 0.1);
        const std::optional<SimTime> port = port_span(p, m, c, 2 * p * 100);
        if (!port) continue;
        const auto [ours, peak] = zbv_auto(p, m, c);
        CHECK(ours <= *port);
        CHECK(peak <= 2 * p * 100);
        strictly += ours < *port ? 1 : 0;
      }
    }
  }
  // Measured: the search shortens the heuristic's span in some of these cases.
  CHECK(strictly >= 1);
}
