// The automatic zero-bubble schedules against the paper: its Table 5 inputs, its own heuristic
// (schedules/zb_paper_greedy) on random costs, and the objective that follows the optimizer mode.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>
#include <utility>

#include "model/placement.hpp"
#include "schedules/builder.hpp"
#include "schedules/zb_paper_greedy.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"
#include "validate/validator.hpp"

using namespace pipeplan;

namespace {

// One row of Table 5 of Qi et al., "Zero Bubble Pipeline Parallelism" (ICLR 2024): the model's
// hidden size h and heads a (its Table 3; sequence 1024), P, M, and the profiled F, B, W and
// transfer times in ms. The memory of a micro-batch is the paper's (its Table 1, 16-bit, no
// recompute): a_F = 34h + 5as and a_W = 32h per token and layer; only their ratio matters here.
struct Row {
  const char* model;
  long h, a;
  int p, m;
  double f, b, w, comm;
  // The span bubble of the authors' own heuristic (zerobubble/scheduler/zb.py, initial_solution,
  // its eight choices) on these inputs, under P and 2P micro-batches of memory: run beside ours
  // on 2026-11-30 (docs/schedules.md says how). (span - M(F+B+W)) / span of the longest span.
  double heuristic_1p, heuristic_2p;
};

constexpr Row kTable5[] = {
    {"1.5B", 2304, 24, 8, 24, 18.522, 18.086, 9.337, 0.601, 0.158520, 0.043310},
    {"1.5B", 2304, 24, 8, 32, 18.522, 18.086, 9.337, 0.601, 0.123796, 0.003634},
    {"1.5B", 2304, 24, 8, 64, 18.522, 18.086, 9.337, 0.601, 0.065982, 0.001820},
    {"6.2B", 4096, 32, 8, 24, 29.718, 29.444, 19.927, 0.527, 0.132295, 0.002868},
    {"6.2B", 4096, 32, 8, 32, 29.718, 29.444, 19.927, 0.527, 0.102615, 0.002153},
    {"6.2B", 4096, 32, 8, 64, 29.718, 29.444, 19.927, 0.527, 0.054083, 0.001078},
    {"14.6B", 5120, 40, 16, 48, 11.347, 11.248, 8.132, 0.377, 0.139732, 0.006617},
    {"14.6B", 5120, 40, 16, 64, 11.347, 11.248, 8.132, 0.377, 0.108592, 0.004971},
    {"14.6B", 5120, 40, 16, 128, 11.347, 11.248, 8.132, 0.377, 0.057414, 0.002492},
    {"28.3B", 6144, 48, 32, 96, 10.419, 10.207, 7.715, 0.408, 0.142148, 0.003760},
    {"28.3B", 6144, 48, 32, 128, 10.419, 10.207, 7.715, 0.408, 0.110539, 0.002822},
    {"28.3B", 6144, 48, 32, 256, 10.419, 10.207, 7.715, 0.408, 0.058503, 0.001413},
};

CostModel row_costs(const Row& row) {
  const Bytes a_f = 34 * row.h + 5 * row.a * 1024;
  return uniform_costs(row.p, row.p, StageCost{row.f, row.b, row.w, a_f, 32 * row.h}, row.comm);
}

Schedule generate(const char* name, const GenerateRequest& r) {
  return find_generator(name)->generate(r);
}

SimResult simulate_post_validation(const Schedule& s, const CostModel& c) {
  SimOptions options;
  options.optimizer_mode = OptimizerMode::PostValidation;
  return simulate(s, c, options);
}

SimTime longest_span(const SimResult& r) {
  SimTime span = 0;
  for (const DeviceTimeline& d : r.devices) span = std::max(span, d.iterations.front().span());
  return span;
}

// The paper's heuristic alone: the best of its eight passes on the longest span, as the
// reference keeps it.
std::optional<SimTime> paper_heuristic_span(const GreedyProblem& problem) {
  std::optional<SimTime> best;
  for (int bits = 0; bits < 8; ++bits) {
    auto pass = paper_greedy_zero_bubble(problem, {(bits & 4) != 0, (bits & 2) != 0, (bits & 1) != 0});
    if (!pass) continue;
    const SimTime span = longest_span(simulate(pass->schedule, problem.costs));
    if (!best || span < *best) best = span;
  }
  return best;
}

}  // namespace

TEST_CASE("under post-validation zb-1p and zb-2p match or beat the paper's heuristic on every row of Table 5") {
  for (const Row& row : kTable5) {
    CAPTURE(row.model);
    CAPTURE(row.m);
    const CostModel c = row_costs(row);
    GenerateRequest r = test::request(row.p, row.m, 1);
    r.costs = &c;
    r.objective = OptimizerMode::PostValidation;
    for (int per_device : {1, 2}) {
      const char* name = per_device == 1 ? "zb-1p" : "zb-2p";
      const double expected = per_device == 1 ? row.heuristic_1p : row.heuristic_2p;
      CAPTURE(name);
      const Schedule s = generate(name, r);
      const SimResult result = simulate_post_validation(s, c);
      // The paper rounds to four places; ours must not be above the heuristic's to within that.
      CHECK(result.span_bubble_rate() <= expected + 0.5e-4);
      for (const DeviceTimeline& d : result.devices) {
        CHECK(d.peak_memory <= per_device * row.p * c.stages.front().activation_bytes);
      }
    }
  }
}

TEST_CASE("the port of the paper's heuristic gives the reference's span bubble on Table 5") {
  // The port alone, outside the search: equal to the authors' zb.py on the same inputs to the
  // six places printed, which also checks that the simulator times its orders as the reference
  // does (one transfer per stage boundary, every op as early as its order allows).
  for (const Row& row : kTable5) {
    CAPTURE(row.model);
    CAPTURE(row.m);
    const CostModel c = row_costs(row);
    const Schedule shape = empty_schedule("paper", test::request(row.p, row.m, 1), loop_placement(row.p, 1));
    const double work = static_cast<double>(ms_to_ns(row.f) + ms_to_ns(row.b) + ms_to_ns(row.w)) * row.m;
    for (const auto& [factor, expected] : {std::pair{1, row.heuristic_1p}, std::pair{2, row.heuristic_2p}}) {
      const std::vector<Bytes> limit(static_cast<std::size_t>(row.p),
                                     factor * row.p * c.stages.front().activation_bytes);
      const std::optional<SimTime> span = paper_heuristic_span({shape, c, limit});
      REQUIRE(span.has_value());
      const double bubble = (static_cast<double>(*span) - work) / static_cast<double>(*span);
      CHECK(std::abs(bubble - expected) < 1e-6);
    }
  }
}

TEST_CASE("on Table 5's own profile the simulated ZB-2p gives Table 4's measured throughput") {
  // Table 4 of the same paper: samples per GPU per second of 1F1B, ZB-1p and ZB-2p at each row's
  // P and M, with micro-batches of 6, 3, 1 and 1 sequences (its Table 3). The profile was taken
  // under ZB-2p, so given what a stage measured the simulator should time that schedule as it
  // ran: within issue 25's 5% on this table (2.2% when written; 1F1B and ZB-1p come out 6.2% and
  // 7.7% fast, docs/validation.md, and are held to the measured order only). 1F1B-I is left out:
  // its one-layer chunks pay per-op costs a stage's profile does not hold.
  struct Measured {
    int micro_batch;
    double one_f_one_b, zb_1p, zb_2p;
  };
  constexpr Measured kTable4[] = {
      {6, 11.8, 12.9, 14.5}, {6, 12.5, 13.4, 14.8}, {6, 13.6, 14.2, 14.9}, {3, 3.50, 3.88, 4.32},
      {3, 3.70, 4.00, 4.35}, {3, 4.03, 4.20, 4.39}, {1, 1.40, 1.61, 1.81}, {1, 1.49, 1.67, 1.83},
      {1, 1.64, 1.76, 1.85}, {1, 0.76, 0.87, 0.99}, {1, 0.80, 0.90, 1.00}, {1, 0.88, 0.96, 1.00},
  };
  static_assert(std::size(kTable4) == std::size(kTable5));
  double error = 0;
  for (std::size_t i = 0; i < std::size(kTable5); ++i) {
    const Row& row = kTable5[i];
    const Measured& measured = kTable4[i];
    CAPTURE(row.model);
    CAPTURE(row.m);
    const CostModel c = row_costs(row);
    GenerateRequest r = test::request(row.p, row.m, 1);
    r.costs = &c;
    const auto samples_per_gpu_s = [&](const SimResult& result) {
      return row.m * measured.micro_batch / double(row.p) / (ns_to_ms(result.step_time()) / 1000);
    };
    const double one_f_one_b = samples_per_gpu_s(simulate(generate("1f1b", r), c));
    r.objective = OptimizerMode::PostValidation;
    const double zb_1p = samples_per_gpu_s(simulate_post_validation(generate("zb-1p", r), c));
    const double zb_2p = samples_per_gpu_s(simulate_post_validation(generate("zb-2p", r), c));
    CHECK(one_f_one_b < zb_1p);
    CHECK(zb_1p < zb_2p);
    error += std::abs(zb_2p / measured.zb_2p - 1);
  }
  CHECK(error / double(std::size(kTable5)) <= 0.05);
}

TEST_CASE("the objective follows the optimizer mode") {
  // P = 3, M = 8, per-stage costs (one of the random cases below, seed 13, draw 3), no transfer,
  // a limit of 12 activations: each pick is the better one in its own measure, and here they
  // differ (measured: the post-validation pick's longest span 36.0 ms against the sync pick's
  // 36.6; the sync pick's makespan 37.9 ms against 38.6). Random costs, since on Table 5's
  // uniform rows a longer walk can find one schedule best in both measures.
  CostModel c = uniform_costs(3, 3, StageCost{1, 1, 1, 100, 30}, 0);
  c.stages[0] = StageCost{1.3, 1.5, 1.5, 100, 30};
  c.stages[1] = StageCost{1.1, 1.8, 1.6, 100, 30};
  c.stages[2] = StageCost{0.9, 1.9, 0.5, 100, 30};
  GenerateRequest r = test::request(3, 8, 1);
  r.costs = &c;
  r.memory_limit = {1260};
  const SimResult sync = simulate_post_validation(generate("zb", r), c);
  r.objective = OptimizerMode::PostValidation;
  const SimResult post = simulate_post_validation(generate("zb", r), c);
  CHECK(longest_span(post) < longest_span(sync));
  CHECK(sync.makespan < post.makespan);
}

TEST_CASE("on random per-stage costs zb is never worse than the paper's heuristic and better on average") {
  // Unequal F, B, W per stage, a heavier last stage half of the time, transfers, limits of 1P to
  // 3P micro-batches: the comparison and method of docs/schedules.md, on a fixed seed.
  std::mt19937 rng(13);
  double ratio_sum = 0;
  int cases = 0;
  int better = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int p = 2 + static_cast<int>(rng() % 7);
    const int m = p + static_cast<int>(rng() % (3 * static_cast<unsigned>(p)));
    CAPTURE(p);
    CAPTURE(m);
    CostModel c = uniform_costs(p, p, StageCost{1, 1, 1, 100, 30}, 0);
    for (StageCost& stage : c.stages) {
      stage.f_ms = 0.5 + static_cast<double>(rng() % 16) / 10;
      stage.b_ms = 0.5 + static_cast<double>(rng() % 16) / 10;
      stage.w_ms = 0.2 + static_cast<double>(rng() % 16) / 10;
    }
    if (rng() % 2 == 0) c.stages.back() = StageCost{1.7, 2.0, 1.4, 140, 40};
    c.transfer.fixed_ms = static_cast<double>(rng() % 4) / 20;
    const Bytes limit = static_cast<Bytes>(p) * 140 * (1 + static_cast<Bytes>(rng() % 3));
    const Schedule shape = empty_schedule("paper", test::request(p, m, 1), loop_placement(p, 1));
    const std::optional<SimTime> paper =
        paper_heuristic_span({shape, c, std::vector<Bytes>(static_cast<std::size_t>(p), limit)});
    if (!paper) continue;  // the heuristic found no schedule within this limit
    GenerateRequest r = test::request(p, m, 1);
    r.costs = &c;
    r.memory_limit = {limit};
    r.objective = OptimizerMode::PostValidation;
    const SimTime ours = longest_span(simulate(generate("zb", r), c));
    CHECK(ours <= *paper);
    ratio_sum += static_cast<double>(ours) / static_cast<double>(*paper);
    better += ours < *paper ? 1 : 0;
    ++cases;
  }
  // Measured on this seed: 40 cases, mean span ratio 0.9977, 7 strictly shorter (up to 2.3%);
  // in the others the heuristic's schedule is already the best the search finds.
  REQUIRE(cases >= 30);
  CHECK(ratio_sum / cases < 0.999);
  CHECK(better >= 5);
}

TEST_CASE("the warm-up rule's exemption holds only while the device before also covers every micro-batch") {
  // The reference skips "device s runs at least one forward fewer than s-1 before its first B"
  // for a device whose warm-up covers all M; with a fast, roomy later stage it then runs ahead
  // of its predecessor and its times refer to forwards not yet placed (its asserts fail). Here
  // P = 4, M = 4, the later stages' forwards cheap and their memory room for all M, the first
  // two stages' room for two: the port keeps the rule where device s-1 does not cover all M
  // (the repair), and the exemption where it does; the strict staircase keeps it everywhere.
  // Every pass runs to the end and its reported span is the simulator's.
  CostModel c = uniform_costs(4, 4, StageCost{2, 2, 1, 100, 30}, 0.5);
  for (int s = 2; s < 4; ++s) c.stages[static_cast<std::size_t>(s)] = StageCost{0.2, 3, 1, 10, 3};
  const Schedule shape = empty_schedule("paper", test::request(4, 4, 1), loop_placement(4, 1));
  int kept = 0;    // reference passes where two neighbours both cover all M (the exemption)
  int strict = 0;  // strict passes made (they differ from the reference's)
  for (const std::vector<Bytes>& limit :
       {std::vector<Bytes>{200, 200, 1000, 1000}, std::vector<Bytes>{400, 400, 1000, 1000}}) {
    for (int bits = 0; bits < 16; ++bits) {
      CAPTURE(limit[0]);
      CAPTURE(bits);
      const bool is_strict = (bits & 8) != 0;
      auto pass = paper_greedy_zero_bubble({shape, c, limit},
                                           {(bits & 4) != 0, (bits & 2) != 0, (bits & 1) != 0,
                                            is_strict ? WarmUpStaircase::Strict : WarmUpStaircase::Reference});
      if (!pass) {
        CHECK(is_strict);  // the strict pass is left out only where it is the reference's own
        continue;
      }
      if (is_strict) ++strict;
      for (const Problem& problem : validate(pass->schedule, c, {})) FAIL_CHECK(problem.message);
      std::vector<int> warm_up;
      for (const auto& ops : pass->schedule.order) {
        warm_up.push_back(static_cast<int>(
            std::find_if(ops.begin(), ops.end(), [](const Op& op) { return op.kind != OpKind::F; }) - ops.begin()));
      }
      for (std::size_t s = 1; s < warm_up.size(); ++s) {
        const bool both_cover = warm_up[s] == 4 && warm_up[s - 1] == 4;
        if (both_cover && !is_strict) ++kept;
        CHECK((warm_up[s] < warm_up[s - 1] || warm_up[s] == 1 || (both_cover && !is_strict)));
      }
      CHECK(longest_span(simulate(pass->schedule, c)) == pass->longest_span);
    }
  }
  CHECK(kept > 0);
  CHECK(strict > 0);
}

TEST_CASE("zb plans on the looped placement with several chunks per device") {
  // --chunks 2: 2P stages, stage s on device s mod P, each chunk half a stage's work; the
  // automatic interleaved schedule is no worse on the span than interleaved 1F1B, a candidate
  // of the search, and strictly better here because its backward is split.
  const int p = 4;
  const int m = 8;
  CostModel c = uniform_costs(2 * p, p, StageCost{0.5, 0.5, 0.5, 50, 20}, 0.05);
  GenerateRequest r = test::request(p, m, 2);
  r.costs = &c;
  r.memory_limit = {static_cast<Bytes>(3 * p * 100)};
  r.objective = OptimizerMode::PostValidation;
  const Schedule zb = generate("zb", r);
  CHECK(zb.placement == loop_placement(p, 2));
  for (const Problem& problem : validate(zb, c, {r.memory_limit.front()})) FAIL_CHECK(problem.message);
  const SimTime interleaved = longest_span(simulate(test::generated("interleaved", p, m), c));
  CHECK(longest_span(simulate(zb, c)) < interleaved);
}

TEST_CASE("with several iterations the search minimises the simulated steady state") {
  // --iterations 3 under post-validation: candidates are scored by the steady-state step of a
  // three-iteration run, and the walk's moves index the first iteration's ops only (the run
  // holds all three). ZB-H1 is a candidate within P micro-batches, so the steady state of the
  // pick is no longer than ZB-H1's.
  for (int p : {3, 4}) {
    CAPTURE(p);
    CostModel c = uniform_costs(p, p, StageCost{1, 1.2, 0.8, 100, 25}, 0.1);
    c.stages.back() = StageCost{1.5, 1.8, 1.2, 150, 40};
    for (DeviceCost& d : c.devices) d.optimizer_ms = 0.5;
    GenerateRequest r = test::request(p, 4 * p, 1);
    r.costs = &c;
    r.memory_limit = {p * 150};
    r.objective = OptimizerMode::PostValidation;
    r.iterations = 3;
    const Schedule zb = generate("zb", r);
    for (const Problem& problem : validate(zb, c, {r.memory_limit.front()})) FAIL_CHECK(problem.message);
    SimOptions options;
    options.optimizer_mode = OptimizerMode::PostValidation;
    options.iterations = 3;
    CHECK(simulate(zb, c, options).step_time() <= simulate(test::generated("zbh1", p, 4 * p), c, options).step_time());
  }
}
