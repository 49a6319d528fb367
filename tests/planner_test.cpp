#include <doctest/doctest.h>

#include "calibrate/measured_pieces.hpp"
#include "io/calibrated_profile_json.hpp"
#include "io/json_text.hpp"
#include "io/model_config_json.hpp"
#include "io/plan_json.hpp"
#include "io/plan_text.hpp"
#include "lower/lowering.hpp"
#include "model/error.hpp"
#include "plan/planner.hpp"
#include "sim/comm_simulator.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

PlanRequest tiny_request() {
  PlanRequest r;
  r.model = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  r.training.seq = 256;
  r.training.micro_batch = 1;
  r.training.global_batch = 16;
  r.gpu = &gpu_named("h100");
  r.gpus = 4;
  r.schedules = {"1f1b", "zbh1", "interleaved", "zbv", "zb"};
  r.threads = 2;
  // tp 1, micro-batch 1, no recompute, no sharding, cp 1 (plan_search_test searches them); ep searched.
  r.search = {false, false, false, false, true, false};
  return r;
}

}  // namespace

TEST_CASE("the planner ranks every configuration that fits by tokens per second per GPU") {
  const PlanRequest r = tiny_request();
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  CHECK(out.over_memory.empty());  // a tiny model on 80 GB cards
  // pp 1, 2, 4 (dp 4, 2, 1): 1F1B and ZB-H1 once each, interleaved with V = 2, 3, 4 and zb with
  // V = 1, 2, 3, 4 where pp*V stages fit the 10 pieces (E, 8 layers, H), ZB-V with V = 2: pp 2
  // gives 2 + 3 + 4 + 1, pp 4 gives 2 + 1 + 2 (V = 1, 2) + 1, and pp 1 only 1F1B: one device
  // runs every schedule's work in one order, and no framework runs chunks on a single stage.
  CHECK(out.considered == 1 + 10 + 6);
  std::size_t refused = 0;
  for (const auto& [reason, count] : out.refused) refused += std::size_t(count);
  // Every configuration is a row, a row merged into an identical one, over memory, refused or
  // skipped (a bound said it could not reach the top).
  CHECK(out.rows.size() + std::size_t(out.merged) + out.over_memory.size() + refused + std::size_t(out.skipped) ==
        std::size_t(out.considered));
  CHECK(out.skipped == 0);  // no top asked: every configuration simulated
  for (const PlanRow& row : out.rows) {
    if (row.pp == 1) CHECK((row.schedule == "1f1b" && row.chunks == 1));
  }
  for (std::size_t i = 1; i < out.rows.size(); ++i) {
    CHECK(out.rows[i - 1].tokens_per_s_per_gpu >= out.rows[i].tokens_per_s_per_gpu);
  }
  for (const PlanRow& row : out.rows) {
    CHECK(row.pp * row.dp * row.tp == 4);
    CHECK(row.microbatches * row.dp * r.training.micro_batch == r.training.global_batch);
    // Tokens per second per GPU: the global batch's tokens over the step, over the GPUs.
    CHECK(row.tokens_per_s_per_gpu == doctest::Approx(16.0 * 256 / (row.step_ms / 1e3) / 4));
    CHECK(row.max_peak() <= row.memory_limit);
  }
}

TEST_CASE("the planner's winner, rebuilt and simulated again, gives the numbers it reported") {
  const PlanRequest r = tiny_request();
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  for (std::size_t i = 0; i < out.rows.size() && i < 3; ++i) {
    const PlanRow& row = out.rows[i];
    const PlannedRun run = rebuild_row(r, row);
    const SimResult again = simulate(run.schedule, run.profile.costs);
    CHECK(ns_to_ms(again.step_time()) == row.step_ms);
    CHECK(again.bubble_rate() == row.bubble_rate);
    for (std::size_t d = 0; d < row.peak_memory.size(); ++d) CHECK(again.devices[d].peak_memory == row.peak_memory[d]);
    // MFU: the model's F, B and W FLOPs for the global batch over the step at the GPUs' peak.
    const double flops = run.profile.model_flops_per_microbatch * row.microbatches * row.dp;
    CHECK(row.mfu == doctest::Approx(flops / (row.step_ms / 1e3) / (4 * 989.4e12)));
  }
}

TEST_CASE("a memory limit below every configuration leaves none, and says how close they came") {
  PlanRequest r = tiny_request();
  r.memory_limit = 1000;
  const PlanOutcome out = plan(r);
  CHECK(out.rows.empty());
  REQUIRE(!out.over_memory.empty());
  CHECK(out.over_memory.front().max_peak() <= out.over_memory.back().max_peak());
  CHECK(plan_text(out, 5).find("no configuration fits in memory") != std::string::npos);
}

TEST_CASE("requests no configuration can meet are refused with the flag named") {
  PlanRequest r = tiny_request();
  r.training.micro_batch = 2;
  r.training.global_batch = 7;
  CHECK(test::error_of([&] { (void)plan(r); }) ==
        "--global-batch 7: no data-parallel degree of 4 pipeline ranks splits it into micro-batches of 2");
  r = tiny_request();
  r.training.tp = 3;
  CHECK(test::error_of([&] { (void)plan(r); }) == "--gpus 4: must be a multiple of --tp 3");
  r = tiny_request();
  r.schedules = {"1f1c"};
  CHECK(test::error_of([&] { (void)plan(r); }).rfind("--schedules: unknown schedule '1f1c'", 0) == 0);
}

TEST_CASE("a given layout limits the search to its stage count") {
  PlanRequest r = tiny_request();
  r.layout = "E,t*4|t*4,H";
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  for (const PlanRow& row : out.rows) {
    CHECK(row.pp * row.chunks == 2);
    CHECK(row.layout == "E,t*4|t*4,H");
  }
  const Json j = plan_to_json(out);
  CHECK(j["format"] == "pipeplan.plan");
  CHECK(j["rows"].size() == out.rows.size());
  CHECK(j["rows"][0]["layout"] == "E,t*4|t*4,H");
}

TEST_CASE("a calibrated profile's measured pieces replace the estimated times") {
  const std::string path = PIPEPLAN_TEST_DATA "/calibrated/tiny-llama.json";
  const CalibratedProfile cal = calibrated_profile_from_json(parse_json(read_text_file(path), path), path);
  // Layer F = 0.6 + 0.4, B = 2, W = 1; head 0.5 each; embedding F 0.1, W 0.1.
  CHECK(cal.pieces.layer.f_ms == doctest::Approx(1.0));
  CHECK(cal.pieces.layer.b_ms == 2.0);
  CHECK(cal.pieces.head.w_ms == 0.5);
  CHECK(cal.pieces.embedding.b_ms == 0.0);
  CHECK(cal.training.seq == 256);
  CHECK(layout_string(cal.layout) == "E,t*4|t*4,H");
  PlanRequest r = tiny_request();
  r.measured = cal.pieces;
  r.layout = "E,t*4|t*4,H";
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  const PlannedRun run = rebuild_row(r, out.rows.front());
  // Stage 0: the embedding and 4 layers; stage 1: 4 layers and the head.
  CHECK(run.profile.costs.stages[0].f_ms == doctest::Approx(0.1 + 4 * 1.0));
  CHECK(run.profile.costs.stages[0].w_ms == doctest::Approx(0.1 + 4 * 1.0));
  CHECK(run.profile.costs.stages[1].b_ms == doctest::Approx(4 * 2.0 + 0.5));
  CHECK(test::error_of([] { (void)calibrated_profile_from_json(Json::parse(R"({"stages": []})"), "p.json"); }) ==
        "p.json: not a profile from 'pipeplan-gpu calibrate' (no \"calibration\")");
}

TEST_CASE("when the time-balanced layout is over memory, a layout with lighter first stages can fit") {
  // 1F1B holds P micro-batches on its first stage and one on its last, so moving layers off the
  // first stages lowers the peak. With the limit just below the balanced layout's peak, the
  // planner still finds pp 4, with another layout, within the limit.
  PlanRequest r = tiny_request();
  r.schedules = {"1f1b"};
  const auto pp4 = [](const std::vector<PlanRow>& rows) -> const PlanRow* {
    for (const PlanRow& row : rows) {
      if (row.pp == 4) return &row;
    }
    return nullptr;
  };
  const PlanOutcome free = plan(r);
  const PlanRow* balanced = pp4(free.rows);
  REQUIRE(balanced != nullptr);
  r.memory_limit = balanced->max_peak() - 1;
  const PlanOutcome tight = plan(r);
  const PlanRow* tilted = pp4(tight.rows);
  REQUIRE(tilted != nullptr);
  CHECK(tilted->layout != balanced->layout);
  CHECK(tilted->max_peak() <= r.memory_limit);
  CHECK(tilted->step_ms >= balanced->step_ms);  // the time balance was the fastest
  // The row rebuilds to the same numbers with its own layout.
  const PlannedRun run = rebuild_row(r, *tilted);
  CHECK(ns_to_ms(simulate(run.schedule, run.profile.costs).step_time()) == tilted->step_ms);
}

TEST_CASE("a mixture of experts is planned with expert parallelism searched, and its rows show ep") {
  PlanRequest r = tiny_request();
  r.model = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-qwen-moe.json");  // 4 experts, 2 layers
  r.schedules = {"1f1b", "zbv", "dualpipev"};
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  CHECK(out.experts);
  bool spread = false;
  for (const PlanRow& row : out.rows) {
    // The expert groups fold over the stage's tp·cp·dp ranks (here tp 1, cp 1: the dp ranks).
    CHECK((row.tp * row.cp * row.dp) % (row.etp * row.ep) == 0);
    CHECK(4 % row.ep == 0);  // and divide evenly among them
    spread = spread || row.ep > 1;
  }
  CHECK(spread);
  // Each schedule where its P·V stages fit the 4 pieces (E, 2 layers, H), once per ep dividing dp
  // and the 4 experts: pp 1 (dp 4: ep 1, 2, 4) 1F1B alone (one device runs one order), pp 2 (dp
  // 2: ep 1, 2) all three, pp 4 (dp 1) only 1F1B (the V needs 8 stages).
  CHECK(out.considered == 3 + 3 * 2 + 1);
  const std::string text = plan_text(out, 3);
  CHECK(text.find(" tp  cp  ep etp ranks     V ") != std::string::npos);
  CHECK(plan_to_json(out)["rows"][0].contains("ep"));
  CHECK(plan_to_json(out)["rows"][0]["rank_order"] == "tp-dp-pp");  // one node: Megatron's order
  // A dense model's table has no ep column.
  CHECK(plan_text(plan(tiny_request()), 3).find(" ep ") == std::string::npos);
}

TEST_CASE("the progress counts the configurations the outcome reports, up to their total") {
  // Issue 31, item 9: the counter once counted jobs (a layout with all its schedules and chunk
  // counts), 980 beside the 3632 configurations the same run reported. Each call's total is the
  // outcome's `considered`, the count grows, and the last call is total of total.
  const PlanRequest r = tiny_request();
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  const PlanOutcome out = plan(r, [&](std::size_t done, std::size_t total) { calls.emplace_back(done, total); });
  REQUIRE(!calls.empty());
  const auto considered = static_cast<std::size_t>(out.considered);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    CHECK(calls[i].second == considered);
    CHECK(calls[i].first <= considered);
    if (i > 0) CHECK(calls[i].first >= calls[i - 1].first);
  }
  CHECK(calls.back().first == considered);
  // More configurations than jobs here (each job holds a layout's schedules and chunk counts),
  // so a count of jobs could not pass: 1F1B, ZB-H1, interleaved, ZB-V and zb for pp 2 alone
  // are five configurations.
  CHECK(considered > 5);
}

TEST_CASE("a request that leaves no configuration to try says so, not that none fits in memory") {
  // Issue 31: --pp 64 on a model of 8 layers (10 pieces with the embedding and the head) gives
  // no layout, so no configuration is tried; the text once said "no configuration fits in memory".
  PlanRequest r = tiny_request();
  r.gpus = 64;
  r.pp = 64;
  r.training.global_batch = 64;
  const PlanOutcome out = plan(r);
  CHECK(out.considered == 0);
  const std::string text = plan_text(out, 5);
  CHECK(text.find("no configuration to try: the degrees given") != std::string::npos);
  CHECK(text.find("fits in memory") == std::string::npos);
}

// The bar a job prunes with comes from the jobs kBarLag or more before it (planner.cpp), never
// from whichever thread finished first: the same configurations are simulated and skipped on any
// number of threads. Llama-2-7B on 8 H100 (seq 4096, global batch 64, --top 5) is a plan where a
// bar shared as each job finished gave 85 rows within memory on 1 thread and 93 or 96 on 4 or 8.
TEST_CASE("plan counts and rows are the same on 1, 3 and 8 threads") {
  PlanRequest r;
  r.model = read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/llama-2-7b.json");
  r.training.seq = 4096;
  r.training.global_batch = 64;
  r.gpu = &gpu_named("h100");
  r.gpus = 8;
  r.schedules = default_plan_schedules(r.model);
  r.top = 5;
  const auto outcome = [&](int threads) {
    r.threads = threads;
    return plan(r);
  };
  const PlanOutcome one = outcome(1);
  REQUIRE(one.skipped > 0);  // the bar prunes here: otherwise there would be nothing to differ
  for (const int threads : {3, 8}) {
    CAPTURE(threads);
    const PlanOutcome many = outcome(threads);
    CHECK(many.considered == one.considered);
    CHECK(many.skipped == one.skipped);
    CHECK(many.merged == one.merged);
    CHECK(many.rows.size() == one.rows.size());
    CHECK(many.over_memory.size() == one.over_memory.size());
    // Every row, not only the top: the same configuration at the same step, in the same place.
    CHECK(to_json_text(plan_to_json(many)) == to_json_text(plan_to_json(one)));
  }
}

TEST_CASE("--comm: each row is its schedule lowered and simulated under the mode, as simulate --comm times it") {
  PlanRequest r = tiny_request();
  r.schedules = {"1f1b"};
  r.pp = 4;
  const PlanOutcome overlapped = plan(r);
  r.comm = CommMode::Blocking;
  r.policy = LowerPolicy::Batched;
  const PlanOutcome blocking = plan(r);
  REQUIRE(overlapped.rows.size() == 1);
  REQUIRE(blocking.rows.size() == 1);
  const PlanRow& row = blocking.rows.front();
  // The row's schedule, lowered with the policy and run under the mode, gives the row's numbers.
  const PlannedRun run = rebuild_row(r, row);
  const CommSimResult again = simulate_with_comm(lower(run.schedule, LowerPolicy::Batched, &run.profile.costs),
                                                 run.profile.costs, CommMode::Blocking);
  REQUIRE(again.stuck.empty());
  CHECK(ns_to_ms(again.result.step_time()) == row.step_ms);
  CHECK(again.result.bubble_rate() == row.bubble_rate);
  // The transfers now hold the compute streams: slower than overlapped, on the same memory (the
  // order of the ops, which memory follows, is the same).
  CHECK(row.step_ms > overlapped.rows.front().step_ms);
  CHECK(row.peak_memory == overlapped.rows.front().peak_memory);
  // The breakdown's lines still add up to the step: the transfers are in its idle line.
  REQUIRE(row.breakdown.has_value());
  CHECK(row.breakdown->step_ms == doctest::Approx(row.step_ms));
  CHECK(row.breakdown->idle_ms > overlapped.rows.front().breakdown->idle_ms);
}

TEST_CASE("--comm: a schedule its policy cannot lower is refused, saying why, and a policy under overlap") {
  PlanRequest r = tiny_request();
  r.schedules = {"zbv"};
  r.pp = 2;
  r.comm = CommMode::Blocking;
  r.policy = LowerPolicy::Batched;  // ZB-V's V sends on one device pair in two orders (docs/schedules.md)
  const PlanOutcome out = plan(r);
  CHECK(out.rows.empty());
  REQUIRE(!out.refused.empty());
  CHECK(out.refused.begin()->first.starts_with("zbv: "));
  r.policy.reset();  // the timed lowering runs every schedule
  CHECK(!plan(r).rows.empty());
  r.comm = CommMode::Overlap;
  r.policy = LowerPolicy::Timed;
  CHECK_THROWS_WITH_AS((void)plan(r), doctest::Contains("blocking or rendezvous"), Error);
}
