// The planner's search over tensor parallelism, micro-batch size, recompute and sharding, and
// what it skips (docs/costs.md, "The planner").
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "io/model_config_json.hpp"
#include "io/plan_text.hpp"
#include "plan/plan_bounds.hpp"
#include "plan/plan_evaluate.hpp"
#include "plan/planner.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

PlanRequest tiny_search() {
  PlanRequest r;
  r.model = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  r.training.seq = 256;
  r.training.global_batch = 16;
  r.gpu = &gpu_named("h100");
  r.gpus = 4;
  r.schedules = {"1f1b", "interleaved", "zbv", "zb"};
  r.threads = 2;
  return r;
}

PlanRequest model_on(const char* model, const char* gpu, int gpus, int global_batch) {
  PlanRequest r;
  r.model = read_model_config_file(std::string(PIPEPLAN_TEST_DATA "/../../profiles/models/") + model);
  r.training.seq = 4096;
  r.training.global_batch = global_batch;
  r.gpu = &gpu_named(gpu);
  r.gpus = gpus;
  r.schedules = {"1f1b", "interleaved", "zbh1"};  // the handcrafted ones: fast enough for a unit test
  r.top = 5;
  return r;
}

}  // namespace

TEST_CASE("the tensor-parallel degrees divide the GPUs, heads, key-value heads and FFN within a node") {
  PlanRequest r = tiny_search();  // 4 heads, 2 key-value heads, FFN 128, on 4 GPUs
  CHECK(tp_choices(r) == std::vector<int>{1, 2});
  r.gpus_per_node = 1;
  CHECK(tp_choices(r) == std::vector<int>{1});
  r.search.tp = false;
  r.training.tp = 4;  // asked for: taken as it is (the key-value heads then refuse it)
  CHECK(tp_choices(r) == std::vector<int>{4});
  // Llama-3-70B, 64 heads, 8 key-value heads, on 64 H100 (8 a node): 1, 2, 4, 8.
  CHECK(tp_choices(model_on("llama-3-70b.json", "h100", 64, 256)) == std::vector<int>{1, 2, 4, 8});
}

TEST_CASE("the search covers tp, micro-batch, recompute and sharding, a fixed setting stays fixed") {
  PlanRequest r = tiny_search();
  const PlanOutcome out = plan(r);
  std::set<int> tps, micro_batches;
  for (const PlanRow& row : out.rows) {
    tps.insert(row.tp);
    micro_batches.insert(row.micro_batch);
    CHECK(row.pp * row.dp * row.tp * row.cp == 4);
    CHECK(row.microbatches * row.dp * row.micro_batch == 16);
    CHECK((row.dp * row.cp > 1) == (row.sharding != Sharding::None));  // nothing to shard without replicas
  }
  CHECK(tps == std::set<int>{1, 2});
  CHECK(micro_batches == std::set<int>{1, 2, 4, 8});
  r.search.tp = false;
  r.training.tp = 2;
  r.search.micro_batch = false;
  r.training.micro_batch = 2;
  r.search.sharding = false;
  for (const PlanRow& row : plan(r).rows) {
    CHECK(row.tp == 2);
    CHECK(row.micro_batch == 2);
    CHECK(row.sharding == Sharding::None);
  }
}

TEST_CASE("--microbatches keeps the configurations with that many micro-batches") {
  PlanRequest r = tiny_search();
  r.microbatches = 4;
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  for (const PlanRow& row : out.rows) CHECK(row.microbatches == 4);
  r.microbatches = 3;
  CHECK(test::error_of([&] { (void)plan(r); }) ==
        "--microbatches 3: no data-parallel degree and micro-batch size split the global batch of 16 into that many");
}

TEST_CASE("--pp and --chunks keep the configurations with that pipeline degree and chunk count") {
  PlanRequest r = tiny_search();
  r.pp = 2;
  r.chunks = 2;
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  std::set<std::string> schedules;
  for (const PlanRow& row : out.rows) {
    CHECK(row.pp == 2);
    CHECK(row.chunks == 2);
    schedules.insert(row.schedule);
  }
  // 1f1b runs one chunk per device, so only the others can have two.
  CHECK(schedules.count("1f1b") == 0);
  CHECK(schedules.count("interleaved") == 1);
  r.pp = 3;  // 4 GPUs: no tensor- and context-parallel degrees leave a multiple of 3
  CHECK(test::error_of([&] { (void)plan(r); }) ==
        "--pp 3: no tensor- and context-parallel degrees tried leave a multiple of 3 of the 4 GPUs");
  r.pp = 0;
  r.chunks = 3;
  r.schedules = {"1f1b", "zbh1"};
  CHECK(test::error_of([&] { (void)plan(r); }) ==
        "--chunks 3: none of the schedules tried takes that many chunks per device");
}

TEST_CASE("pruning by the step's lower bound leaves the top rows as an exhaustive search finds them") {
  PlanRequest r = tiny_search();
  const PlanOutcome all = plan(r);
  r.top = 3;
  const PlanOutcome top = plan(r);
  CHECK(top.skipped > all.skipped);  // without a top, only variants a lighter one dominates are skipped
  REQUIRE(top.rows.size() >= 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(plan_row_title(top.rows[i]) == plan_row_title(all.rows[i]));
  for (std::size_t i = 0; i < 3; ++i) CHECK(top.rows[i].step_ms == all.rows[i].step_ms);
}

TEST_CASE("pp 1 is tried once, as 1F1B with one chunk, and identical rows are shown once") {
  const PlanOutcome out = plan(tiny_search());
  std::set<std::tuple<int, int, int, int, int>> seen;
  for (const PlanRow& row : out.rows) {
    if (row.pp == 1) {
      CHECK(seen.insert({row.tp, row.cp, row.micro_batch, int(row.recompute), int(row.sharding)}).second);
      CHECK(row.schedule == "1f1b");
      CHECK(row.chunks == 1);
    }
  }
  CHECK(out.merged > 0);  // ZB-H1 and zb with one chunk build one order at pp 2
  // One device asked to interleave or to run a V is refused with the reason, not planned.
  PlanRequest r = tiny_search();
  r.pp = 1;
  r.schedules = {"interleaved", "dualpipev"};
  const PlanOutcome one = plan(r);
  CHECK(one.rows.empty());
  bool named = false;
  for (const auto& [reason, count] : one.refused)
    named = named || reason.starts_with("pp 1: one device runs its layers in order");
  CHECK(named);
}

TEST_CASE("a refusal names its configuration") {
  PlanRequest r = tiny_search();
  // pp 2, dp 2: M = 5, which PyTorch's rounds for interleaved (floor(5/2) = 2 rounds) do not split.
  r.training.global_batch = 10;
  r.search = {false, false, false, false};
  const PlanOutcome out = plan(r);
  const auto it = std::find_if(out.refused_example.begin(), out.refused_example.end(), [](const auto& e) {
    return e.first.starts_with("interleaved: M = 5 micro-batches do not split into 2 equal rounds for P = 2, V = 4:");
  });
  REQUIRE(it != out.refused_example.end());
  CHECK(out.refused.at(it->first) == 1);  // the message names V, so V = 2, 3 and 4 are three reasons
  // The refusal names the configuration it refused, V = 4 among them.
  CHECK(it->second ==
        "interleaved, pp 2 x 4 chunks, dp 2, tp 1, micro-batch 1, recompute none, sharding none, 5 micro-batches");
  CHECK(plan_text(out, 3).find("(first: interleaved, pp ") != std::string::npos);
}

TEST_CASE("every schedule, zb included, takes the fastest of its layouts that fit") {
  // The limit sits just under the balanced layout's peak for zb on pp 4, so zb must choose among
  // the tilted layouts, and it takes the fastest that fits rather than the first.
  PlanRequest r = tiny_search();
  r.search = {false, false, false, false};
  r.schedules = {"zb"};
  r.memory_limit = 0;
  const PlanOutcome free = plan(r);
  const auto pp4 = [](const PlanOutcome& o) {
    return std::find_if(o.rows.begin(), o.rows.end(),
                        [](const PlanRow& row) { return row.pp == 4 && row.chunks == 1; });
  };
  REQUIRE(pp4(free) != free.rows.end());
  const PlanRow balanced = *pp4(free);
  const PieceTotals t = piece_totals(r.model, r.training, *r.gpu, r.efficiency);
  const PlanJob job{1, 4, 1, 1, 16, 1, find_generator("zb"), {}, 0};
  double fastest = 1e300;
  for (double tilt : {0.0, 0.5, 1.0, 2.0}) {
    const Layout layout = balanced_layout(4, t.embedding, t.layers, t.head, tilt);
    const EvaluatedLayout e = evaluate_layout(r, job, r.training, layout, RankOrder::TpDpPp);
    if (e.row.max_peak() <= balanced.memory_limit) fastest = std::min(fastest, e.row.step_ms);
  }
  CHECK(balanced.step_ms == fastest);
}

TEST_CASE("Llama-3-70B on 64 H100: the search splits each sequence over 2 or more ranks") {
  // With tp 1 nothing better than pp 64 at a 46% bubble fits (issue 14); tp 2 or more, or cp,
  // split the 70.6e9 parameters' 18 bytes (or 6 + 12/d sharded, 16/d under FSDP) and the
  // activations over more GPUs per stage. FSDP over 32 (tp 2, no pipeline) hides its gathers
  // under each layer's forward, but every micro-batch's gathers and reduce-scatters then hold 16
  // of the 132 SMs under its compute (collective_contention.hpp): a pipeline of tp-2 stages with
  // the distributed optimizer, whose collectives run once a step, leads.
  const PlanOutcome out = plan(model_on("llama-3-70b.json", "h100", 64, 256));
  REQUIRE(!out.rows.empty());
  CHECK(out.rows.front().tp * out.rows.front().cp >= 2);
  CHECK(out.rows.front().bubble_rate < 0.2);
  const std::string text = plan_text(out, 3);
  CHECK(text.find("  mb recompute sharding ") != std::string::npos);
  CHECK(out.rows.front().sharding == Sharding::Optimizer);
  CHECK(out.rows.front().pp > 1);
}

TEST_CASE("Llama-2-13B on 8 A100-40GB: full recompute, then tensor parallelism, beat the best without") {
  // Issue 14: with tp 1 and no recompute only zb fits, at a bubble near 80%; full recompute lets
  // a 1F1B-like schedule fit with a small bubble, and tp 2 or more fits without recompute. At
  // 8192 tokens a sequence: at 4096 the layer's activations (fused SwiGLU keeping its input and
  // product, 3Tfe) let zb fit without recompute at a bubble of a third, as fast as recompute.
  PlanRequest r = model_on("llama-2-13b.json", "a100-40gb", 8, 128);
  r.training.seq = 8192;
  // 40 layers of 4 x 5120^2 + 3 x 5120 x 13824 + 2 x 5120, two 32000 x 5120 embeddings and the
  // final norm: 13,015,864,320, the count of meta-llama/Llama-2-13b-hf's weights.
  CHECK(model_parameters(r.model) == 13'015'864'320);
  r.schedules = {"1f1b", "interleaved", "zbh1", "zb"};
  r.search.tp = false;  // tp 1
  r.search.recompute = false;
  // Micro-batch 1 and no sharding fixed: the claim is about recompute and tp, and the search over
  // the rest would plan zb four times as often (minutes under the sanitizers).
  r.search.micro_batch = false;
  r.search.sharding = false;
  const PlanOutcome plain = plan(r);
  REQUIRE(!plain.rows.empty());
  CHECK(plain.rows.front().bubble_rate > 0.4);
  r.search.recompute = true;
  const PlanOutcome recompute = plan(r);
  REQUIRE(!recompute.rows.empty());
  CHECK(recompute.rows.front().recompute == Recompute::Full);
  CHECK(recompute.rows.front().tokens_per_s_per_gpu > 1.3 * plain.rows.front().tokens_per_s_per_gpu);
  r.search.tp = true;
  const PlanOutcome tp = plan(r);
  REQUIRE(!tp.rows.empty());
  CHECK(tp.rows.front().tp >= 2);
  CHECK(tp.rows.front().tokens_per_s_per_gpu > recompute.rows.front().tokens_per_s_per_gpu);
}

TEST_CASE("rank orders: the faster alone, both when each is faster somewhere, Megatron's for experts") {
  PlanRequest r = tiny_search();
  r.gpus = 64;
  TrainingSettings tr = r.training;
  const auto orders = [&](int tp, int pp, int dp, int ep = 1) {
    tr.tp = tp;
    tr.ep = ep;
    const PlanJob job{tp, pp, dp, 1, 1, 1, find_generator("1f1b"), {}, 0, ep};
    return rank_orders(r, job, tr);
  };
  using V = std::vector<RankOrder>;
  // tp 4, pp 4, dp 4 on 8-GPU nodes (rank_placement_test): tp-pp-dp keeps two of the pipeline's
  // boundaries in a node; both spread the data-parallel groups, Megatron's with two members a
  // node (two network cards for its rings), tp-pp-dp's with one: each is faster somewhere.
  CHECK(orders(4, 4, 4) == V{RankOrder::TpDpPp, RankOrder::TpPpDp});
  // tp 8 fills a node: every boundary and data-parallel group crosses under either; the default.
  CHECK(orders(8, 2, 4) == V{RankOrder::TpDpPp});
  // tp 2, pp 8, dp 4: tp-dp-pp keeps each data-parallel group {t + 2d} + 8p in a node and every
  // boundary across; tp-pp-dp keeps 6 of 7 boundaries in a node and the groups across: both.
  CHECK(orders(2, 8, 4) == V{RankOrder::TpDpPp, RankOrder::TpPpDp});
  CHECK(orders(2, 8, 4, 2) == V{RankOrder::TpDpPp});  // Megatron refuses ep under tp-pp-dp
  r.rank_order = RankOrder::TpPpDp;
  CHECK(orders(8, 2, 4) == V{RankOrder::TpPpDp});  // fixed: taken as it is
}

namespace {

// 8 GPUs on 4-GPU nodes with tp 1: pp 2 x dp 4 trades the pipeline's one boundary (inside a node
// under tp-pp-dp, rank p + 2d) against the data-parallel all-reduce (inside under tp-dp-pp,
// rank d + 4p), so both orders are simulated.
PlanRequest two_nodes() {
  PlanRequest r = tiny_search();
  r.gpus = 8;
  r.gpus_per_node = 4;
  r.training.global_batch = 32;
  r.search.tp = false;
  r.schedules = {"1f1b", "zbh1"};
  return r;
}

// A row's configuration without its rank order and layout.
std::string configuration(const PlanRow& row) {
  return fmt::format("{} {} {} {} {} {} {} {} {} {}", row.schedule, row.pp, row.chunks, row.dp, row.cp, row.micro_batch,
                     row.microbatches, int(row.recompute), row.recompute_layers, int(row.sharding));
}

}  // namespace

TEST_CASE("the planner keeps the faster rank order per configuration, and a fixed one is honoured") {
  PlanRequest r = two_nodes();
  const PlanOutcome searched = plan(r);
  r.rank_order = RankOrder::TpDpPp;
  const PlanOutcome megatron = plan(r);
  r.rank_order = RankOrder::TpPpDp;
  const PlanOutcome stages = plan(r);
  for (const PlanRow& row : megatron.rows) CHECK(row.rank_order == RankOrder::TpDpPp);
  for (const PlanRow& row : stages.rows) CHECK(row.rank_order == RankOrder::TpPpDp);
  std::set<RankOrder> chosen;
  int both = 0;
  for (const PlanRow& row : searched.rows) {
    chosen.insert(row.rank_order);
    const auto same = [&](const PlanOutcome& o) {
      return std::find_if(o.rows.begin(), o.rows.end(),
                          [&](const PlanRow& k) { return configuration(k) == configuration(row); });
    };
    const auto a = same(megatron), b = same(stages);
    if (a == megatron.rows.end() || b == stages.rows.end()) continue;
    INFO(plan_row_title(row));
    if (row.cp > 1) {  // Megatron runs context parallelism in its default order only
      CHECK(row.rank_order == RankOrder::TpDpPp);
      CHECK(row.step_ms == a->step_ms);
      continue;
    }
    ++both;
    CHECK(row.step_ms == std::min(a->step_ms, b->step_ms));
    CHECK(row.rank_order == (b->step_ms < a->step_ms ? RankOrder::TpPpDp : RankOrder::TpDpPp));
  }
  CHECK(both > 0);
  CHECK(chosen.size() == 2);  // each order wins somewhere
  // The text shows the order of each row; the JSON's rows carry it too (plan_json).
  CHECK(plan_text(searched, 3).find(" ranks ") != std::string::npos);
  CHECK(plan_text(stages, 3).find(" tp-pp-dp ") != std::string::npos);
  CHECK(plan_row_title(stages.rows.front()).find(", ranks tp-pp-dp,") != std::string::npos);
}

TEST_CASE("pruning leaves the top rows as an exhaustive search finds them, with both rank orders tried") {
  PlanRequest r = two_nodes();
  const PlanOutcome all = plan(r);
  r.top = 3;
  const PlanOutcome top = plan(r);
  REQUIRE(top.rows.size() >= 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(plan_row_title(top.rows[i]) == plan_row_title(all.rows[i]));
  for (std::size_t i = 0; i < 3; ++i) CHECK(top.rows[i].step_ms == all.rows[i].step_ms);
}

TEST_CASE("a row rebuilt for --emit-schedule carries its order's boundaries") {
  // pp 4 x dp 2 on 4-GPU nodes, tp 1: tp-dp-pp (rank d + 2p) crosses nodes on 1->2 only; the
  // rebuilt profile names each boundary.
  PlanRequest r = two_nodes();
  r.rank_order = RankOrder::TpDpPp;
  const PlanOutcome out = plan(r);
  const auto row = std::find_if(out.rows.begin(), out.rows.end(),
                                [](const PlanRow& k) { return k.pp == 4 && k.chunks == 1 && k.dp == 2; });
  REQUIRE(row != out.rows.end());
  const PlannedRun run = rebuild_row(r, *row);
  REQUIRE(run.profile.costs.boundaries.size() == 3);
  const double nvlink = r.gpu->intra_node.bandwidth_gb_per_s,
               network = r.gpu->inter_node.bandwidth_gb_per_s * r.gpu->inter_node.send_efficiency;
  CHECK(run.profile.costs.boundaries[0].bandwidth_gb_per_s == nvlink);
  CHECK(run.profile.costs.boundaries[1].bandwidth_gb_per_s == network);
  CHECK(run.profile.costs.boundaries[2].bandwidth_gb_per_s == nvlink);
}

TEST_CASE("a smaller search budget ranks, the rows shown are what the default budget builds") {
  // The planner may search zb with less than its default budget while ranking, then evaluates the
  // rows it shows again with the default: so each shown zb row's step is the step of the schedule
  // rebuild_row (--emit-schedule, and `pipeplan generate`) builds with the default budget.
  // A budget of one simulated op leaves each search its candidates and no walk. On this model the
  // walk finds nothing better, so the steps would agree even unrefined; the partial_search flags
  // say the first three were built again (without refine_top this test fails on them).
  PlanRequest r = model_on("llama-2-7b.json", "h100", 8, 32);
  r.schedules = {"zb"};
  r.pp = 8;  // a pipeline long enough for the search to matter
  r.training.tp = 1;
  r.search.tp = false;
  r.top = 3;
  r.search_budget = 1;
  const PlanOutcome out = plan(r);
  REQUIRE(out.rows.size() >= 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const PlanRow& row = out.rows[i];
    INFO(plan_row_title(row));
    CHECK_FALSE(row.partial_search);
    const PlannedRun run = rebuild_row(r, row);
    SimOptions options;
    options.record_timeline = false;
    const SimResult result = simulate(run.schedule, run.profile.costs, options);
    CHECK(ns_to_ms(result.step_time()) == row.step_ms);
  }
  // Rows below the first three keep their partial search (zb's at pp 8 searched with 1 op).
  CHECK(std::any_of(out.rows.begin() + 3, out.rows.end(), [](const PlanRow& k) { return k.partial_search; }));
  // Ranked in the end by the refined steps.
  for (std::size_t i = 1; i < out.rows.size() && i < 3; ++i) {
    CHECK(out.rows[i - 1].tokens_per_s_per_gpu >= out.rows[i].tokens_per_s_per_gpu);
  }
}

TEST_CASE("the context-parallel degrees: powers of two dividing the GPUs over tp, 2·cp dividing the sequence") {
  PlanRequest r = model_on("llama-3-70b.json", "h100", 64, 256);
  CHECK(cp_choices(r, 4) == std::vector<int>{1, 2, 4, 8, 16});  // 16 ranks over tp 4; 4096 / 32 chunks
  r.training.seq = 4100;                                        // 4100 = 4 x 1025: 2 x 2 chunks, not 2 x 4
  CHECK(cp_choices(r, 4) == std::vector<int>{1, 2});
  r.training.flash_attention = false;  // Megatron's ring needs the fused attention
  CHECK(cp_choices(r, 4) == std::vector<int>{1});
  r.search.cp = false;
  r.training.cp = 2;
  CHECK(cp_choices(r, 4) == std::vector<int>{2});
  CHECK(cp_choices(r, 64).empty());  // one rank over tp 64 cannot hold cp 2
}

TEST_CASE("every job's GPUs are tp x cp x pp x dp, cp > 1 is tried at micro-batch 1 when both are searched") {
  PlanRequest r = model_on("llama-3-70b.json", "h100", 64, 256);
  std::map<std::string, int> refused;
  const std::vector<PlanJob> jobs = plan_jobs(r, refused);
  std::set<int> cps;
  for (const PlanJob& j : jobs) {
    CHECK(j.tp * j.cp * j.pp * j.dp == 64);
    // (2c, 2b) holds on each rank what (c, b) holds, with twice c's data parallelism, and rings
    // more steps: never faster, never lighter.
    if (j.cp > 1) CHECK(j.micro_batch == 1);
    cps.insert(j.cp);
  }
  CHECK(cps == std::set<int>{1, 2, 4, 8, 16, 32, 64});
  // With the micro-batch fixed, cp is tried beside it.
  r.search.micro_batch = false;
  r.training.micro_batch = 2;
  const std::vector<PlanJob> fixed = plan_jobs(r, refused);
  CHECK(std::any_of(fixed.begin(), fixed.end(), [](const PlanJob& j) { return j.cp > 1 && j.micro_batch == 2; }));
}

TEST_CASE("the (2c, 2b) job the search leaves out is the (c, b) job with a longer ring: never ahead") {
  // Llama-3-70B, seq 8192, tp 8, pp 4 on 64 H100: cp 2 at micro-batch 2 against cp 1 at 1, both M 32.
  PlanRequest r = model_on("llama-3-70b.json", "h100", 64, 64);
  r.training.seq = 8192;
  r.search = {false, false, false, false, false, false};
  r.training.tp = 8;
  r.training.sharding = Sharding::Optimizer;
  r.pp = 4;
  r.schedules = {"1f1b"};
  r.training.micro_batch = 1;
  r.training.cp = 1;
  const PlanOutcome a = plan(r);
  r.training.micro_batch = 2;
  r.training.cp = 2;
  const PlanOutcome b = plan(r);
  REQUIRE(!a.rows.empty());
  REQUIRE(!b.rows.empty());
  CHECK(a.rows.front().microbatches == b.rows.front().microbatches);
  CHECK(a.rows.front().max_peak() == b.rows.front().max_peak());
  CHECK(a.rows.front().step_ms <= b.rows.front().step_ms);
}

TEST_CASE("expert parallelism is searched over the folded range: ep may exceed dp") {
  // Mixtral's 8 experts at tp 2 on 8 GPUs, pp 2: dp 2, but the stage's 4 ranks hold ep 4 at etp 1.
  PlanRequest r = model_on("mixtral-8x7b.json", "h100", 8, 16);
  r.search.tp = false;
  r.training.tp = 2;
  r.training.etp = 1;
  r.pp = 2;
  r.search.cp = false;
  std::map<std::string, int> refused;
  std::set<int> eps;
  for (const PlanJob& j : plan_jobs(r, refused)) {
    CHECK(j.dp == 2);
    eps.insert(j.ep);
  }
  CHECK(eps == std::set<int>{1, 2, 4});
  r.training.etp = 0;  // etp = tp 2: 2 x ep must divide the 4 ranks
  eps.clear();
  for (const PlanJob& j : plan_jobs(r, refused)) eps.insert(j.ep);
  CHECK(eps == std::set<int>{1, 2});
}

TEST_CASE("with activation offloading the search keeps to one stage and no recompute, as Megatron-LM runs it") {
  PlanRequest r = tiny_search();
  r.training.offload_layers = 2;
  r.top = 50;
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  for (const PlanRow& row : out.rows) {
    CHECK(row.pp == 1);
    CHECK(row.chunks == 1);
    CHECK(row.recompute == Recompute::None);
  }
  CHECK(out.refused.count("activation offloading (--offload-layers) runs on one stage: no pipeline parallelism, one "
                          "chunk") == 1);
  r.pp = 2;
  CHECK(test::error_of([&] { (void)plan(r); }) ==
        "--offload-layers 2: Megatron-LM offloads activations only without pipeline parallelism, on one stage, not 2");
  r.pp = 0;
  r.search.recompute = false;
  r.training.recompute = Recompute::Full;
  CHECK(test::error_of([&] {
          (void)plan(r);
        }).starts_with("--offload-layers 2: Megatron-LM refuses activation offloading with recompute"));
}

TEST_CASE("a lighter recompute that fits only with tilted stages does not rule out a heavier one at balanced stages") {
  // DeepSeek-V3 on 256 B300 (Megatron-Bridge's configuration: pp 8, ep 8, micro-batch 2, 1F1B,
  // MXFP8): without recompute 1F1B's eight micro-batches in flight on stage 0 fit only with
  // lighter first stages (E,t*7|t*7|t*7|t*8|...), so a heavier recompute at balanced stages (the
  // MLA up-projections' and the experts' activation's, or full) is still simulated beside it:
  // which is faster depends on the imbalance against the recompute (before Megatron-Core's
  // combine stopped keeping the experts' outputs, stage 0 fit only at E,t*5|t*5|..., and full
  // recompute won).
  PlanRequest r = model_on("deepseek-v3.json", "b300", 256, 4096);
  r.training.dtype = DType::BF16;
  r.training.fp8 = Fp8Recipe::Mxfp8;
  r.training.micro_batch = 2;
  r.search.micro_batch = false;
  r.search.tp = false;
  r.search.cp = false;
  r.search.ep = false;
  r.search.sharding = false;
  r.training.ep = 8;
  r.training.sharding = Sharding::Optimizer;
  r.pp = 8;
  r.schedules = {"1f1b"};
  const PlanOutcome out = plan(r);
  REQUIRE(out.rows.size() >= 2);
  const auto tilted = std::find_if(out.rows.begin(), out.rows.end(),
                                   [](const PlanRow& row) { return row.recompute == Recompute::None; });
  const auto balanced = std::find_if(out.rows.begin(), out.rows.end(),
                                     [](const PlanRow& row) { return row.recompute != Recompute::None; });
  REQUIRE(tilted != out.rows.end());
  REQUIRE(balanced != out.rows.end());
  CHECK(tilted->layout.starts_with("E,t*7|"));
  CHECK(tilted->layout != balanced->layout);
  // The heavier one is the lightest recompute between none and full that DeepSeek-V3 has: its
  // MLA up-projections, norms apart and experts' activation (recompute_modules.hpp).
  CHECK(balanced->recompute == Recompute::Selective);
  CHECK(balanced->recompute_modules == (unsigned(RecomputeModule::Layernorm) | unsigned(RecomputeModule::MlaUpProj) |
                                        unsigned(RecomputeModule::MoeAct)));
}

TEST_CASE("between no recompute and full recompute the search tries full recompute's blocks of a quarter of a chunk") {
  // Tiny-Llama's 8 layers on one GPU at micro-batch 16 (one micro-batch a step): without recompute
  // the peak is 64.1 MB, with full recompute 18.8 MB, and each layer a block recomputes keeps
  // 6.36 MB less (Megatron-LM's --recompute-method block --recompute-num-layers N). The search
  // tries blocks of 2, 4 and 6 layers (a quarter, a half, three quarters of the stage) after full
  // recompute on every layer; at a 40 MB limit 2 (57.0 MB) and 4 (44.3 MB) are over, 6 (31.5 MB)
  // fits, and it is faster than recomputing all 8.
  PlanRequest r = tiny_search();
  r.gpus = 1;
  r.schedules = {"1f1b"};
  r.training.micro_batch = 16;
  r.search.micro_batch = false;
  r.search.sharding = false;
  r.memory_limit = 40'000'000;
  const PlanOutcome out = plan(r);
  REQUIRE(!out.rows.empty());
  const PlanRow& best = out.rows.front();
  CHECK(best.recompute == Recompute::Full);
  CHECK(best.recompute_layers == 6);
  CHECK(best.peak_memory.front() <= r.memory_limit);
  // The blocks over memory are reported as such, the smallest (keeping the most) of them nearest.
  bool block_over = false;
  for (const PlanRow& row : out.over_memory) block_over = block_over || row.recompute_layers == 4;
  CHECK(block_over);
  // A block the request fixes (--recompute-layers) is the only one tried.
  r.training.recompute_layers = 4;
  const PlanOutcome fixed = plan(r);
  for (const PlanRow& row : fixed.rows) CHECK((row.recompute != Recompute::Full || row.recompute_layers == 4));
  // And a fixed recompute is not searched: full recompute on every layer, slower than the block.
  r.training.recompute_layers = 0;
  r.training.recompute = Recompute::Full;
  r.search.recompute = false;
  const PlanOutcome full = plan(r);
  REQUIRE(!full.rows.empty());
  for (const PlanRow& row : full.rows) CHECK(row.recompute_layers == 0);
  CHECK(best.step_ms < full.rows.front().step_ms);
}
