#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>

#include "estimate/megatron_layout.hpp"
#include "io/model_config_json.hpp"
#include "model/error.hpp"
#include "plan/launch.hpp"
#include "schedules/generator.hpp"

using namespace pipeplan;

namespace {

// tiny-llama: 8 layers, 4 heads; seq 256, global batch 16 on 8 GPUs.
PlanRequest tiny_request() {
  PlanRequest r;
  r.model = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  r.training.seq = 256;
  r.training.global_batch = 16;
  r.training.overlap_grad_reduce = true;
  r.training.overlap_param_gather = true;
  r.gpu = &gpu_named("h100");
  r.gpus = 8;
  r.threads = 1;
  return r;
}

// The same, planned with torchtitan's loss (the one its launch runs; Megatron-LM's is the default).
PlanRequest titan_request() {
  PlanRequest r = tiny_request();
  r.training.loss = Loss::Torch;
  return r;
}

// `r` with 1F1B's transfers as both frameworks run them (--comm blocking --policy batched), so that
// a 1F1B row's launch has no gap for them and the tests below see only the gap they are about
// (the transfers' own gap is tested on its own).
PlanRequest as_1f1b_runs(PlanRequest r) {
  r.comm = CommMode::Blocking;
  r.policy = LowerPolicy::Batched;
  return r;
}

// A row of pp 2 x dp 2 x tp 2: 4 micro-batches of 2 sequences per step (16 = 2 x 2 x 4).
PlanRow tiny_row(const std::string& schedule, int chunks, const std::string& layout) {
  PlanRow row;
  row.schedule = schedule;
  row.pp = 2;
  row.dp = 2;
  row.tp = 2;
  row.etp = 2;
  row.chunks = chunks;
  row.microbatches = 4;
  row.micro_batch = 2;
  row.layout = layout;
  row.megatron_layout = "(megatron layout)";  // written by the planner; the launch copies it
  row.step_ms = 10;
  return row;
}

// The names on a pinned list (tests/data/launch/*.txt: one a line, '#' comments).
std::set<std::string> pinned(const std::string& file) {
  std::ifstream in(std::string(PIPEPLAN_TEST_DATA) + "/launch/" + file);
  std::set<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') out.insert(line);
  }
  return out;
}

const LaunchSetting* setting(const LaunchPlan& launch, const std::string& name) {
  for (const LaunchSetting& s : launch.settings) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string value(const LaunchPlan& launch, const std::string& name) {
  const LaunchSetting* s = setting(launch, name);
  return s == nullptr ? "(absent)" : s->value;
}

}  // namespace

TEST_CASE("the pinned lists name the commits the launch cites") {
  std::ifstream megatron(PIPEPLAN_TEST_DATA "/launch/megatron-args.txt");
  std::string first;
  std::getline(megatron, first);
  CHECK(first.find(std::string(kMegatronCommit)) != std::string::npos);
  std::ifstream torchtitan(PIPEPLAN_TEST_DATA "/launch/torchtitan-keys.txt");
  std::getline(torchtitan, first);
  CHECK(first.find(std::string(kTorchtitanCommit)) != std::string::npos);
  std::ifstream pytorch(PIPEPLAN_TEST_DATA "/launch/pytorch-schedules.txt");
  std::getline(pytorch, first);
  CHECK(first.find(std::string(kPytorchCommit)) != std::string::npos);
}

// Every branch of both tables: each generator (those the frameworks run and those they do not,
// a new one included without an edit), recompute, sharding, FP8 recipe, rank order, and cp and
// ep; every name emitted must be on the list read from the framework's source.
TEST_CASE("every emitted flag and key is on the pinned list") {
  const std::set<std::string> megatron = pinned("megatron-args.txt");
  const std::set<std::string> torchtitan = pinned("torchtitan-keys.txt");
  const std::set<std::string> classes = pinned("pytorch-schedules.txt");
  REQUIRE(megatron.size() > 500);  // arguments.py's flags and its dataclasses' fields
  REQUIRE(torchtitan.size() > 100);
  REQUIRE(classes.size() == 9);
  PlanRequest r = tiny_request();
  r.gpu = &gpu_named("b200");         // every FP8 recipe, mxfp8 included, runs on Blackwell
  r.training.tp_comm_overlap = true;  // the rows' tp 2: its flag and keys emitted too
  PlanRequest moe = r;                // for the rows with ep 2: 2 layers, 4 experts
  moe.model = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-qwen-moe.json");
  for (const Generator& g : generators()) {
    const int chunks = g.chunks_for(0);
    // 2 x chunks stages over 8 layers, E first and H last, uneven for the layout flag.
    std::string layout = "E,t";
    for (int s = 1; s < 2 * chunks; ++s)
      layout += s + 1 < 2 * chunks ? "|t" : "|t*" + std::to_string(9 - 2 * chunks) + ",H";
    for (Recompute rc : {Recompute::None, Recompute::Selective, Recompute::Full}) {
      for (Sharding sh : {Sharding::None, Sharding::Optimizer, Sharding::Gradients, Sharding::Params}) {
        PlanRow row = tiny_row(std::string(g.name), chunks, layout);
        row.recompute = rc;
        row.sharding = sh;
        row.rank_order = sh == Sharding::Gradients ? RankOrder::TpPpDp : RankOrder::TpDpPp;
        row.cp = sh == Sharding::None ? 2 : 1;
        row.ep = sh == Sharding::Params ? 2 : 1;
        row.precision.fp8 = static_cast<Fp8Recipe>(static_cast<int>(sh));
        row.precision.dtype = rc == Recompute::Full ? DType::FP16 : DType::BF16;
        CAPTURE(g.name);
        CAPTURE(recompute_name(rc));
        CAPTURE(sharding_name(sh));
        if (row.ep > 1) row.layout = chunks == 1 ? "E,t|t,H" : "E|t|t|H";
        const PlanRequest& request = row.ep > 1 ? moe : r;
        const LaunchPlan m = megatron_launch(request, row);
        for (const LaunchSetting& s : m.settings) CHECK_MESSAGE(megatron.count(s.name) == 1, s.name);
        const LaunchPlan t = torchtitan_launch(request, row, {});
        for (const LaunchSetting& s : t.settings) CHECK_MESSAGE(torchtitan.count(s.name) == 1, s.name);
        const std::string cls = value(t, "parallelism.pipeline_parallel_schedule");
        CHECK_MESSAGE(classes.count(cls.substr(1, cls.size() - 2)) == 1, cls);
      }
    }
  }
}

TEST_CASE("Megatron-LM: an even split takes the virtual-stage count, an uneven one the layout alone") {
  const PlanRequest r = tiny_request();
  // 8 layers on 4 stages of 2: Megatron's default split (--num-layers / stages).
  const LaunchPlan even = megatron_launch(r, tiny_row("interleaved", 2, "E,t*2|t*2|t*2|t*2,H"));
  CHECK(value(even, "--num-virtual-stages-per-pipeline-rank") == "2");
  CHECK(setting(even, "--pipeline-model-parallel-layout") == nullptr);
  CHECK(even.gaps.empty());
  CHECK(!even.closest);
  // E and H counted as a layer each (--account-for-*-in-pipeline-split): (8 + 2) / 5 = 2 a
  // stage, the first and the last one layer besides E and H; 8 does not split evenly over 5.
  PlanRow padded = tiny_row("1f1b", 1, "E,t|t*2|t*2|t*2|t,H");
  padded.pp = 5;
  const LaunchPlan p = megatron_launch(r, padded);
  CHECK(value(p, "--account-for-embedding-in-pipeline-split").empty());
  CHECK(value(p, "--account-for-loss-in-pipeline-split").empty());
  CHECK(setting(p, "--pipeline-model-parallel-layout") == nullptr);
  // Arguments.py refuses the layout beside a virtual-stage count: only the layout.
  const LaunchPlan uneven = megatron_launch(r, tiny_row("interleaved", 2, "E,t|t*3|t*3|t,H"));
  CHECK(value(uneven, "--pipeline-model-parallel-layout") == "(megatron layout)");  // no runs to fold
  CHECK(setting(uneven, "--num-virtual-stages-per-pipeline-rank") == nullptr);
  // The rest of the row: tp 2 with sequence parallelism, micro-batch 2, global batch 16, seq 256.
  CHECK(value(uneven, "--tensor-model-parallel-size") == "2");
  CHECK(value(uneven, "--pipeline-model-parallel-size") == "2");
  CHECK(value(uneven, "--sequence-parallel").empty());
  CHECK(value(uneven, "--micro-batch-size") == "2");
  CHECK(value(uneven, "--global-batch-size") == "16");
  CHECK(value(uneven, "--seq-length") == "256");
  CHECK(setting(uneven, "--context-parallel-size") == nullptr);  // cp 1: Megatron's default
  CHECK(setting(uneven, "--overlap-param-gather") == nullptr);   // nothing sharded to gather
  CHECK(value(uneven, "--overlap-grad-reduce").empty());
}

TEST_CASE("Megatron-LM: PyTorch's rounds become Megatron's micro-batch groups where they differ") {
  const PlanRequest r = tiny_request();
  PlanRow row = tiny_row("interleaved", 2, "E,t*2|t*2|t*2|t*2,H");
  row.microbatches = 6;  // P = 2: rounds of 6 / floor(6/2) = 2 = P, Megatron's default group
  CHECK(setting(megatron_launch(r, row), "--microbatch-group-size-per-virtual-pipeline-stage") == nullptr);
  PlanRequest four = r;
  row.pp = 4;  // rounds of 6 / floor(6/4) = 6, where Megatron's default is P = 4
  row.layout = "E,t|t|t|t|t|t|t|t,H";
  CHECK(value(megatron_launch(four, row), "--microbatch-group-size-per-virtual-pipeline-stage") == "6");
  row.microbatches = 3;  // fewer than P: Megatron's groups need P <= N <= M
  CHECK(megatron_launch(four, row).gaps.size() == 1);
}

TEST_CASE("Megatron-LM: a schedule it lacks runs as its closest, simulated") {
  const PlanRequest r = as_1f1b_runs(tiny_request());
  const PlanRow zbh1 = tiny_row("zbh1", 1, "E,t*4|t*4,H");
  const LaunchPlan m = megatron_launch(r, zbh1);
  REQUIRE(m.gaps.size() == 1);
  CHECK(m.gaps[0].find("1F1B") != std::string::npos);
  REQUIRE(m.closest);
  CHECK(m.closest->schedule == "1f1b");
  CHECK(m.closest->step_ms > 0);
  const LaunchPlan v = megatron_launch(r, tiny_row("zbv", 2, "E,t*2|t*2|t*2|t*2,H"));
  REQUIRE(v.closest);
  CHECK(v.closest->schedule == "interleaved");
  CHECK(v.closest->chunks == 2);
  CHECK(value(v, "--num-virtual-stages-per-pipeline-rank") == "2");
}

TEST_CASE("Megatron-LM: recompute, sharding, FP8 and the rank order") {
  const PlanRequest r = tiny_request();
  PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  row.recompute = Recompute::Full;
  row.sharding = Sharding::Gradients;
  row.precision.fp8 = Fp8Recipe::Blockwise;
  row.rank_order = RankOrder::TpPpDp;
  const LaunchPlan m = megatron_launch(r, row);
  CHECK(value(m, "--recompute-granularity") == "full");
  CHECK(value(m, "--recompute-method") == "uniform");
  CHECK(value(m, "--recompute-num-layers") == "1");
  CHECK(value(m, "--use-megatron-fsdp").empty());
  CHECK(value(m, "--data-parallel-sharding-strategy") == "optim_grads");
  CHECK(value(m, "--ckpt-format") == "fsdp_dtensor");
  CHECK(setting(m, "--use-distributed-optimizer") == nullptr);
  CHECK(value(m, "--fp8-format") == "hybrid");
  CHECK(value(m, "--fp8-recipe") == "blockwise");
  CHECK(value(m, "--use-tp-pp-dp-mapping").empty());
  row.recompute = Recompute::Selective;
  row.sharding = Sharding::Optimizer;
  const LaunchPlan s = megatron_launch(r, row);
  CHECK(value(s, "--recompute-granularity") == "selective");
  CHECK(setting(s, "--recompute-method") == nullptr);
  CHECK(value(s, "--use-distributed-optimizer").empty());
  CHECK(value(s, "--overlap-param-gather").empty());
}

TEST_CASE("torchtitan: degrees, batch and the split it would make itself") {
  const PlanRequest r = titan_request();
  // torchtitan's own split of 8 layers over 4 stages (generate_llm_fqn_per_model_part, first and
  // last stage one layer less): 10 "effective" layers, 2 a stage, the first 2 stages 3; so
  // E + 2, 3, 2, 1 + H. Interleaved1F1B's default is 2 stages per rank: nothing to write.
  const LaunchPlan own = torchtitan_launch(r, tiny_row("interleaved", 2, "E,t*2|t*3|t*2|t,H"), {});
  CHECK(setting(own, "parallelism.module_fqns_per_model_part") == nullptr);
  CHECK(value(own, "parallelism.pipeline_parallel_schedule") == "\"Interleaved1F1B\"");
  CHECK(value(own, "parallelism.tensor_parallel_degree") == "2");
  CHECK(value(own, "parallelism.pipeline_parallel_degree") == "2");
  CHECK(value(own, "parallelism.data_parallel_replicate_degree") == "2");  // no sharding: DDP
  CHECK(value(own, "parallelism.data_parallel_shard_degree") == "1");
  CHECK(value(own, "parallelism.pipeline_parallel_microbatch_size") == "2");
  CHECK(value(own, "training.local_batch_size") == "8");  // 16 over dp 2: 4 micro-batches of 2
  CHECK(value(own, "training.global_batch_size") == "16");
  CHECK(value(own, "activation_checkpoint.mode") == "\"none\"");  // its default is selective
  CHECK(own.gaps.empty());
  const LaunchPlan even = torchtitan_launch(r, tiny_row("interleaved", 2, "E,t*2|t*2|t*2|t*2,H"), {});
  CHECK(value(even, "parallelism.module_fqns_per_model_part") ==
        "[\n  [\"tok_embeddings\", \"layers.0\", \"layers.1\"],\n  [\"layers.2\", \"layers.3\"],\n"
        "  [\"layers.4\", \"layers.5\"],\n  [\"layers.6\", \"layers.7\", \"norm\", \"output\"],\n]");
}

TEST_CASE("torchtitan: pipeplan's own orders from the CSV, on the placement their class names") {
  const PlanRequest r = tiny_request();
  const LaunchPlan zbh1 = torchtitan_launch(r, tiny_row("zbh1", 1, "E,t*4|t*4,H"), {"out/schedule.csv"});
  CHECK(value(zbh1, "parallelism.pipeline_parallel_schedule") == "\"PipelineScheduleSingle\"");
  CHECK(value(zbh1, "parallelism.pipeline_parallel_schedule_csv") == "\"out/schedule.csv\"");
  const LaunchPlan vhalf = torchtitan_launch(r, tiny_row("v-half", 2, "E,t*2|t*2|t*2|t*2,H"), {});
  CHECK(value(vhalf, "parallelism.pipeline_parallel_schedule") == "\"ZBVZeroBubble\"");  // the V
  CHECK(value(vhalf, "parallelism.pipeline_parallel_schedule_csv") == "\"schedule.csv\"");
  const LaunchPlan zb = torchtitan_launch(r, tiny_row("zb", 2, "E,t*2|t*2|t*2|t*2,H"), {});
  CHECK(value(zb, "parallelism.pipeline_parallel_schedule") == "\"PipelineScheduleMulti\"");  // the loop
  const LaunchPlan zbv = torchtitan_launch(r, tiny_row("zbv-auto", 2, "E,t*2|t*2|t*2|t*2,H"), {});
  CHECK(value(zbv, "parallelism.pipeline_parallel_schedule") == "\"ZBVZeroBubble\"");
  const LaunchPlan native = torchtitan_launch(r, tiny_row("1f1b", 1, "E,t*4|t*4,H"), {"out/schedule.csv"});
  CHECK(setting(native, "parallelism.pipeline_parallel_schedule_csv") == nullptr);
}

TEST_CASE("torchtitan: what it lacks runs as its closest, simulated") {
  PlanRequest r = as_1f1b_runs(titan_request());
  PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  row.sharding = Sharding::Optimizer;
  row.recompute = Recompute::Selective;
  row.rank_order = RankOrder::TpPpDp;
  row.precision.fp8 = Fp8Recipe::Delayed;
  const LaunchPlan t = torchtitan_launch(r, row, {});
  CHECK(t.gaps.size() == 4);  // ZeRO-1, the rank order, selective recompute, delayed scaling
  REQUIRE(t.closest);
  CHECK(t.closest->sharding == Sharding::Params);
  CHECK(t.closest->recompute == Recompute::Full);
  // Planned with Megatron-LM's loss, it runs torchtitan's: said, and simulated with it.
  r.training.loss = Loss::VocabParallel;
  const LaunchPlan vocab = torchtitan_launch(r, tiny_row("1f1b", 1, "E,t*4|t*4,H"), {});
  REQUIRE(vocab.gaps.size() == 1);
  CHECK(vocab.gaps[0].find("--loss torch") != std::string::npos);
  CHECK(vocab.closest.has_value());
  CHECK(t.closest->rank_order == RankOrder::TpDpPp);
  CHECK(t.closest->precision.fp8 == Fp8Recipe::Tensorwise);
  CHECK(value(t, "parallelism.data_parallel_shard_degree") == "2");
  CHECK(setting(t, "parallelism.data_parallel_replicate_degree") == nullptr);
  CHECK(value(t, "activation_checkpoint.mode") == "\"full\"");
  CHECK(value(t, "model.converters") == "[\"quantize.linear.float8\"]");
  CHECK(value(t, "quantize.linear.float8.recipe_name") == "\"tensorwise\"");
}

TEST_CASE("a row whose schedule is no generator's is refused by name") {
  const PlanRequest r = tiny_request();
  CHECK_THROWS_WITH_AS((void)megatron_launch(r, tiny_row("zbh9", 1, "E,t*4|t*4,H")),
                       doctest::Contains("unknown schedule 'zbh9'"), Error);
  CHECK_THROWS_WITH_AS((void)torchtitan_launch(r, tiny_row("zbh9", 1, "E,t*4|t*4,H"), {}),
                       doctest::Contains("unknown schedule 'zbh9'"), Error);
}

TEST_CASE("Megatron-LM's layout with its runs folded reads back to the same stages") {
  // Llama-3-70B's 80 layers on 32 stages as the planner balanced them (README's winner).
  const std::string full =
      "Et*2|t*2|t*2|t*2|t*2|t*2|t*2|t*2|t*2|t*2|t*2|t*2|t*2|t*2|t*3|t*3|t*3|t*3|t*3|t*3|t*3|t*3|"
      "t*3|t*3|t*3|t*3|t*3|t*3|t*3|t*3|t*3|tL";
  const std::string folded = repeated_layout(full);
  CHECK(folded == "Et*2|(t*2|)*13(t*3|)*17tL");
  // Read as Megatron reads it (parse_megatron_layout follows parse_str_to_list): the same stages.
  const Layout a = parse_megatron_layout(full, 80, "full");
  const Layout b = parse_megatron_layout(folded, 80, "folded");
  REQUIRE(a.size() == b.size());
  for (std::size_t s = 0; s < a.size(); ++s) CHECK(a[s].layers == b[s].layers);
  CHECK(repeated_layout("Et*4|t*4L") == "Et*4|t*4L");
  CHECK(repeated_layout("Et|t|t|t|tL") == "Et|(t|)*3tL");
}

TEST_CASE("--recompute ops: torchtitan's selective by op, Megatron-LM's closest, full recompute, simulated") {
  const PlanRequest r = as_1f1b_runs(tiny_request());
  PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  row.recompute = Recompute::Ops;
  const LaunchPlan t = torchtitan_launch(as_1f1b_runs(titan_request()), row, {});
  CHECK(value(t, "activation_checkpoint.mode") == "\"selective\"");
  CHECK(value(t, "activation_checkpoint.selective_ac_option") == "\"op\"");
  CHECK(t.gaps.empty());
  const LaunchPlan m = megatron_launch(r, row);
  REQUIRE(m.gaps.size() == 1);
  CHECK(m.gaps[0].find("checkpointing by op") != std::string::npos);
  CHECK(value(m, "--recompute-granularity") == "full");
  REQUIRE(m.closest.has_value());
  CHECK(m.closest->recompute == Recompute::Full);
  for (const LaunchSetting& s : t.settings) CHECK_MESSAGE(pinned("torchtitan-keys.txt").count(s.name) == 1, s.name);
  // Planned with torchtitan's loss, Megatron-LM runs its own: said, and simulated with it.
  const LaunchPlan vocab = megatron_launch(as_1f1b_runs(titan_request()), tiny_row("1f1b", 1, "E,t*4|t*4,H"));
  REQUIRE(vocab.gaps.size() == 1);
  CHECK(vocab.gaps[0].find("--loss vocab-parallel") != std::string::npos);
  CHECK(vocab.closest.has_value());
}

TEST_CASE("--loss: Megatron-LM's fused cross entropy is its switch, and TE's, which it refuses, runs as that, said") {
  PlanRequest r = as_1f1b_runs(tiny_request());
  const PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  CHECK(setting(megatron_launch(r, row), "--cross-entropy-loss-fusion") == nullptr);  // the default: unfused
  r.training.loss = Loss::VocabParallelFused;
  const LaunchPlan fused = megatron_launch(r, row);
  CHECK(setting(fused, "--cross-entropy-loss-fusion") != nullptr);
  CHECK(fused.gaps.empty());
  r.training.loss = Loss::TransformerEngine;
  const LaunchPlan te = megatron_launch(r, row);
  CHECK(setting(te, "--cross-entropy-loss-fusion") != nullptr);
  REQUIRE(te.gaps.size() == 1);
  CHECK(te.gaps[0].find("--loss vocab-parallel-fused") != std::string::npos);
  REQUIRE(te.closest.has_value());  // simulated with the loss it runs
  // torchtitan computes torch's loss whatever was planned.
  CHECK(torchtitan_launch(as_1f1b_runs(titan_request()), row, {}).gaps.empty());
}

TEST_CASE("--no-sequence-parallel: Megatron-LM leaves --sequence-parallel out, torchtitan runs it anyway, said") {
  PlanRequest r = as_1f1b_runs(tiny_request());
  const PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  CHECK(value(megatron_launch(r, row), "--sequence-parallel").empty());
  r.training.sequence_parallel = false;
  CHECK(setting(megatron_launch(r, row), "--sequence-parallel") == nullptr);
  r.training.loss = Loss::Torch;  // torchtitan's own: the one gap is sequence parallelism
  const LaunchPlan t = torchtitan_launch(r, row, {});
  REQUIRE(t.gaps.size() == 1);
  CHECK(t.gaps[0].find("sequence-parallel") != std::string::npos);
  REQUIRE(t.closest.has_value());  // simulated as it runs: with sequence parallelism
  CHECK(t.closest->step_ms > 0);
}

TEST_CASE("--tp-comm-overlap: Megatron-LM's flag, torchtitan's async tensor parallelism (compiled)") {
  PlanRequest r = as_1f1b_runs(tiny_request());
  const PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  CHECK(setting(megatron_launch(r, row), "--tp-comm-overlap") == nullptr);  // off: Megatron's default
  CHECK(setting(torchtitan_launch(r, row, {}), "parallelism.enable_async_tensor_parallel") == nullptr);
  r.training.tp_comm_overlap = true;
  CHECK(value(megatron_launch(r, row), "--tp-comm-overlap").empty());
  const LaunchPlan t = torchtitan_launch(r, row, {});
  CHECK(value(t, "parallelism.enable_async_tensor_parallel") == "true");
  CHECK(value(t, "compile.enable") == "true");
  PlanRow alone = row;  // tp 1: nothing to overlap, nothing written
  alone.tp = 1;
  alone.etp = 1;
  alone.dp = 4;
  CHECK(setting(megatron_launch(r, alone), "--tp-comm-overlap") == nullptr);
  CHECK(setting(torchtitan_launch(r, alone, {}), "parallelism.enable_async_tensor_parallel") == nullptr);
  // Each framework has one method: userbuffers on torchtitan, async TP on Megatron-LM are gaps,
  // and the closest run is simulated with the framework's own.
  r.training.loss = Loss::Torch;  // torchtitan's own, so that its launch has no gap for the loss
  REQUIRE(t.gaps.size() == 2);    // the vocabulary-parallel loss, and userbuffers
  CHECK(t.gaps[1].find("--tp-overlap-method async-tp") != std::string::npos);
  const LaunchPlan userbuffers_on_titan = torchtitan_launch(r, row, {});
  REQUIRE(userbuffers_on_titan.gaps.size() == 1);
  REQUIRE(userbuffers_on_titan.closest.has_value());
  r.training.tp_overlap_method = TpOverlapMethod::AsyncTp;
  CHECK(torchtitan_launch(r, row, {}).gaps.empty());
  const LaunchPlan async_on_megatron = megatron_launch(r, row);
  REQUIRE(async_on_megatron.gaps.size() == 2);  // torch's loss, and async TP
  CHECK(async_on_megatron.gaps[1].find("--tp-overlap-method userbuffers") != std::string::npos);
  REQUIRE(async_on_megatron.closest.has_value());
  // Eager element-wise kernels cannot run async TP: torchtitan runs it compiled, and says so.
  r.training.elementwise = Elementwise::Eager;
  r.training.loss = Loss::Torch;
  const LaunchPlan eager = torchtitan_launch(r, row, {});
  CHECK(value(eager, "compile.enable") == "true");
  REQUIRE(eager.gaps.size() == 1);
  CHECK(eager.gaps[0].find("--elementwise fused") != std::string::npos);
  REQUIRE(eager.closest.has_value());  // simulated as it runs: fused
}

TEST_CASE("--elementwise: torchtitan compiles for fused kernels and runs eager without, Megatron-LM fuses") {
  PlanRequest r = as_1f1b_runs(tiny_request());
  r.training.loss = Loss::Torch;  // torchtitan's own, so that its launch has no gap for the loss
  const PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  const LaunchPlan fused = torchtitan_launch(r, row, {});
  CHECK(value(fused, "compile.enable") == "true");
  CHECK(fused.gaps.empty());
  for (const Elementwise how : {Elementwise::Eager, Elementwise::EagerFusedNorm}) {
    r.training.elementwise = how;
    const LaunchPlan eager = torchtitan_launch(r, row, {});
    CHECK(setting(eager, "compile.enable") == nullptr);  // torchtitan's default: uncompiled
    CHECK(eager.gaps.empty());
    // Which norm kernel runs is the installed PyTorch's: the note says how pipeplan priced it.
    const std::string priced = how == Elementwise::Eager ? "op by op" : "as one kernel each";
    CHECK(std::any_of(eager.notes.begin(), eager.notes.end(), [&](const std::string& n) {
      return n.find("nn.RMSNorm") != std::string::npos && n.find(priced) != std::string::npos;
    }));
    r.training.loss = Loss::VocabParallel;
    const LaunchPlan megatron = megatron_launch(r, row);
    REQUIRE(megatron.gaps.size() == 1);
    CHECK(megatron.gaps[0].find("--elementwise fused") != std::string::npos);
    REQUIRE(megatron.closest.has_value());
    CHECK(megatron.closest->step_ms > 0);
    r.training.loss = Loss::Torch;
  }
}

TEST_CASE("Megatron-LM: a row without a pipeline takes no virtual stages, whatever its chunks") {
  // Under pp 1 every schedule is one device's work in order (the planner shows such rows once);
  // Megatron-LM refuses --num-virtual-stages-per-pipeline-rank without a pipeline.
  const PlanRequest r = tiny_request();
  PlanRow row = tiny_row("interleaved", 3, "E,t*3|t*3|t*2,H");
  row.pp = 1;
  row.dp = 4;
  const LaunchPlan m = megatron_launch(r, row);
  CHECK(setting(m, "--num-virtual-stages-per-pipeline-rank") == nullptr);
  CHECK(setting(m, "--pipeline-model-parallel-layout") == nullptr);
  CHECK(value(m, "--pipeline-model-parallel-size") == "1");
}

TEST_CASE("--offload-layers: Megatron-LM offloads that many layers' activations, torchtitan has no such setting") {
  PlanRequest r = tiny_request();
  r.training.offload_layers = 3;
  r.training.loss = Loss::Torch;  // torchtitan's own, so that its launch's one gap is the offloading
  PlanRow row = tiny_row("1f1b", 1, "E,t*8,H");
  row.pp = 1;
  row.tp = 1;
  row.etp = 1;
  row.dp = 8;
  row.microbatches = 1;  // 16 sequences over 8 replicas, 2 a micro-batch
  row.sharding = Sharding::Params;
  const LaunchPlan titan = torchtitan_launch(r, row, {});
  REQUIRE(titan.gaps.size() == 1);
  CHECK(titan.gaps[0].find("offloads no activations") != std::string::npos);
  CHECK(titan.gaps[0].find("--offload-layers 0") != std::string::npos);
  REQUIRE(titan.closest.has_value());  // simulated without offloading, as it runs
  CHECK(titan.closest->step_ms > 0);
  r.training.loss = Loss::VocabParallel;
  r.training.fsdp_impl = FsdpImpl::Megatron;  // Megatron-LM's own FSDP, so that it has no gap
  const LaunchPlan megatron = megatron_launch(r, row);
  CHECK(value(megatron, "--cpu-offloading-num-layers") == "3");
  CHECK(megatron.gaps.empty());
  r.training.offload_layers = 0;
  CHECK(setting(megatron_launch(r, row), "--cpu-offloading-num-layers") == nullptr);
}

TEST_CASE("--fp8-params: Megatron-LM gathers FP8 weights, torchtitan's float8 keeps its bf16 ones") {
  PlanRequest r = tiny_request();
  r.training.fp8 = Fp8Recipe::Tensorwise;
  r.training.fp8_params = true;
  PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  row.precision = {DType::BF16, Fp8Recipe::Tensorwise};
  row.sharding = Sharding::Optimizer;
  CHECK(value(megatron_launch(r, row), "--fp8-param-gather").empty());  // a switch: present, no value
  r.training.loss = Loss::Torch;
  const LaunchPlan titan = torchtitan_launch(r, row, {});
  CHECK(std::any_of(titan.gaps.begin(), titan.gaps.end(),
                    [](const std::string& g) { return g.find("without --fp8-params") != std::string::npos; }));
  row.precision = {DType::BF16, std::nullopt};  // a bf16 row of a plan that tried fp8 too: nothing to write
  r.training.loss = Loss::VocabParallel;
  CHECK(setting(megatron_launch(r, row), "--fp8-param-gather") == nullptr);
}

TEST_CASE("--moe-a2a-overlap is Megatron-Core's switch, which over several stages wants virtual ones") {
  PlanRequest r = tiny_request();
  r.training.moe_a2a_overlap = true;
  const LaunchPlan interleaved = megatron_launch(r, tiny_row("interleaved", 2, "E,t*2|t*2|t*2|t*2,H"));
  CHECK(setting(interleaved, "--overlap-moe-expert-parallel-comm") != nullptr);
  CHECK(interleaved.gaps.empty());
  const LaunchPlan one_chunk = megatron_launch(as_1f1b_runs(r), tiny_row("1f1b", 1, "E,t*4|t*4,H"));
  CHECK(setting(one_chunk, "--overlap-moe-expert-parallel-comm") != nullptr);
  REQUIRE(one_chunk.gaps.size() == 1);
  CHECK(one_chunk.gaps[0].find("only with virtual stages") != std::string::npos);
  // torchtitan has no such overlap: said, and simulated without.
  PlanRequest titan = as_1f1b_runs(titan_request());
  titan.training.moe_a2a_overlap = true;
  const LaunchPlan t = torchtitan_launch(titan, tiny_row("1f1b", 1, "E,t*4|t*4,H"), {});
  REQUIRE(t.gaps.size() == 1);
  CHECK(t.gaps[0].find("--moe-a2a-overlap") != std::string::npos);
  r.training.moe_a2a_overlap = false;
  CHECK(setting(megatron_launch(r, tiny_row("1f1b", 1, "E,t*4|t*4,H")), "--overlap-moe-expert-parallel-comm") ==
        nullptr);
}

TEST_CASE("--recompute-modules is Megatron's list, one argument a module, torchtitan runs full instead") {
  PlanRequest r = as_1f1b_runs(tiny_request());
  PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  row.recompute = Recompute::Selective;
  row.recompute_modules = unsigned(RecomputeModule::Mlp) | unsigned(RecomputeModule::Layernorm);
  const LaunchPlan m = megatron_launch(r, row);
  REQUIRE(setting(m, "--recompute-modules") != nullptr);
  CHECK(setting(m, "--recompute-modules")->value == "layernorm mlp");
  CHECK(setting(m, "--recompute-modules")->words);
  CHECK(setting(m, "--recompute-granularity")->value == "selective");
  // The attention core alone is Megatron's default list: not written.
  row.recompute_modules = kDefaultRecomputeModules;
  CHECK(setting(megatron_launch(r, row), "--recompute-modules") == nullptr);
  row.recompute_modules = unsigned(RecomputeModule::Mlp);
  const LaunchPlan t = torchtitan_launch(as_1f1b_runs(titan_request()), row, {});
  REQUIRE(t.gaps.size() == 1);
  CHECK(t.gaps[0].find("recompute of modules (mlp)") != std::string::npos);
}

TEST_CASE("--grad-reduce-in-bf16 is Megatron-LM's own flag, torchtitan keeps FSDP2's fp32 gradients") {
  PlanRequest r = as_1f1b_runs(tiny_request());
  const PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  CHECK(setting(megatron_launch(r, row), "--grad-reduce-in-bf16") == nullptr);
  r.training.grad_reduce_bf16 = true;
  CHECK(setting(megatron_launch(r, row), "--grad-reduce-in-bf16") != nullptr);
  PlanRequest titan = as_1f1b_runs(titan_request());
  titan.training.grad_reduce_bf16 = true;
  const LaunchPlan t = torchtitan_launch(titan, row, {});
  REQUIRE(t.gaps.size() == 1);
  CHECK(t.gaps[0].find("without --grad-reduce-in-bf16") != std::string::npos);
}

TEST_CASE("--comm: both frameworks' 1F1B waits for each gap's batch, Megatron-LM's interleaving overlaps, said") {
  // Megatron-Core's _communicate waits on every request of send_forward_recv_backward (and the
  // others) before returning; PyTorch's Schedule1F1B waits on fwd_sends + bwd_recvs batched as
  // one. Planned with overlapped transfers, a 1F1B row runs blocking and batched on either.
  const PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  const LaunchPlan m = megatron_launch(tiny_request(), row);
  REQUIRE(m.gaps.size() == 1);
  CHECK(m.gaps[0].find("Megatron-LM's 1F1B") != std::string::npos);
  CHECK(m.gaps[0].find("--comm blocking --policy batched") != std::string::npos);
  REQUIRE(m.closest.has_value());
  // The closest is the same row simulated under that communication: the transfers now hold the
  // compute stream, so it is slower than the row simulated with them overlapped.
  CHECK(m.closest->schedule == "1f1b");
  LaunchPlan overlapped;
  simulate_closest(tiny_request(), row, overlapped);
  REQUIRE(overlapped.closest.has_value());
  CHECK(m.closest->step_ms > overlapped.closest->step_ms);
  const LaunchPlan t = torchtitan_launch(titan_request(), row, {});
  REQUIRE(t.gaps.size() == 1);
  CHECK(t.gaps[0].find("Schedule1F1B") != std::string::npos);
  REQUIRE(t.closest.has_value());
  // The same schedule and transfers as Megatron-LM's closest, but torchtitan's own loss and
  // kernels: near it, not equal.
  CHECK(t.closest->step_ms == doctest::Approx(m.closest->step_ms).epsilon(0.2));
  // Exactly the row planned under blocking and batched, as torchtitan runs it.
  LaunchPlan as_planned;
  simulate_closest(as_1f1b_runs(titan_request()), row, as_planned);
  REQUIRE(as_planned.closest.has_value());
  CHECK(t.closest->step_ms == as_planned.closest->step_ms);
  // Planned as they run it: no gap, nothing simulated apart.
  CHECK(megatron_launch(as_1f1b_runs(tiny_request()), row).gaps.empty());
  CHECK(!megatron_launch(as_1f1b_runs(tiny_request()), row).closest);
  // Without a pipeline there is nothing to send.
  PlanRow alone = row;
  alone.pp = 1;
  alone.dp = 4;
  alone.layout = "E,t*8,H";
  CHECK(megatron_launch(tiny_request(), alone).gaps.empty());
  // Megatron-LM's interleaving posts ahead and waits before the op that needs the data
  // (overlap_p2p_comm, its default): a plan under blocking is said and run overlapped.
  const PlanRow interleaved = tiny_row("interleaved", 2, "E,t*2|t*2|t*2|t*2,H");
  CHECK(megatron_launch(tiny_request(), interleaved).gaps.empty());
  const LaunchPlan blocking = megatron_launch(as_1f1b_runs(tiny_request()), interleaved);
  REQUIRE(blocking.gaps.size() == 1);
  CHECK(blocking.gaps[0].find("--comm overlap") != std::string::npos);
  CHECK(blocking.closest.has_value());
}

TEST_CASE("--ddp-bucket-size is Megatron-LM's flag, the first gather at the step's start older Megatron-Core's") {
  PlanRequest r = tiny_request();
  r.training.overlap_grad_reduce = true;
  r.training.bucket_params = 40000;
  r.training.param_gather_at_step_start = true;
  PlanRow row = tiny_row("1f1b", 1, "E,t*4|t*4,H");
  row.sharding = Sharding::Optimizer;
  const LaunchPlan m = megatron_launch(r, row);
  CHECK(value(m, "--ddp-bucket-size") == "40000");
  const auto says = [](const LaunchPlan& l, const std::string& what) {
    return std::any_of(l.gaps.begin(), l.gaps.end(),
                       [&](const std::string& g) { return g.find(what) != std::string::npos; });
  };
  CHECK(says(m, "without --param-gather-at-step-start"));
  // The run differs, so its closest is simulated, without the early gather.
  CHECK(m.closest.has_value());
  // Without the overlap Megatron-Core keeps no buckets: nothing to size.
  r.training.overlap_grad_reduce = false;
  CHECK(setting(megatron_launch(r, row), "--ddp-bucket-size") == nullptr);
  r.training.loss = Loss::Torch;
  CHECK(says(torchtitan_launch(r, row, {}), "without --ddp-bucket-size and --param-gather-at-step-start"));
}

TEST_CASE("--fsdp-impl: Megatron-LM runs Megatron-FSDP, torchtitan PyTorch's FSDP2, each a gap for the other") {
  PlanRequest r = tiny_request();
  r.training.loss = Loss::Torch;  // torchtitan's own loss, so that its launch's one gap is FSDP's
  PlanRow row = tiny_row("1f1b", 1, "E,t*8,H");
  row.pp = 1;
  row.tp = 1;
  row.etp = 1;
  row.dp = 8;
  row.microbatches = 1;
  row.sharding = Sharding::Params;
  const auto says = [](const LaunchPlan& l, const std::string& what) {
    return std::any_of(l.gaps.begin(), l.gaps.end(),
                       [&](const std::string& g) { return g.find(what) != std::string::npos; });
  };
  CHECK(torchtitan_launch(r, row, {}).gaps.empty());  // FSDP2, the default, is torchtitan's
  r.training.fsdp_impl = FsdpImpl::Megatron;
  const LaunchPlan titan = torchtitan_launch(r, row, {});
  CHECK(says(titan, "--fsdp-impl fsdp2"));
  CHECK(titan.closest.has_value());  // simulated with FSDP2's copies, as it runs
  r.training.loss = Loss::VocabParallel;
  CHECK(megatron_launch(r, row).gaps.empty());
  r.training.fsdp_impl = FsdpImpl::Fsdp2;
  const LaunchPlan megatron = megatron_launch(r, row);
  CHECK(says(megatron, "--fsdp-impl megatron"));
  CHECK(value(megatron, "--use-megatron-fsdp").empty());  // a switch: present, no value
  CHECK(megatron.closest.has_value());
}

TEST_CASE("the launches say what becomes of multi-token prediction layers and of MiniMax's norms across heads") {
  PlanRequest r = tiny_request();
  // MiniMax-M2's shape at tiny-llama's size: 8 layers, norms over all heads, two MTP layers.
  r.model = model_config_from_json(Json::parse(R"({"model_type": "minimax_m2", "hidden_size": 64,
      "intermediate_size": 32, "num_hidden_layers": 8, "num_attention_heads": 4, "num_key_value_heads": 2,
      "head_dim": 16, "vocab_size": 128, "num_local_experts": 4, "num_experts_per_tok": 2, "use_mtp": true,
      "num_mtp_modules": 2})"),
                                   "mtp.json");
  PlanRow row = tiny_row("1f1b", 1, "E,t*3|t*5,H");
  row.tp = row.etp = 1;
  row.dp = 4;
  row.microbatches = 2;
  const LaunchPlan launch = megatron_launch(r, row);
  const auto said = [&](const std::string& words) {
    return std::any_of(launch.notes.begin(), launch.notes.end(),
                       [&](const std::string& n) { return n.find(words) != std::string::npos; });
  };
  CHECK(
      said("the model's 2 multi-token prediction layers run on the last stage with the loss, as planned: pass "
           "--mtp-num-layers 2"));
  CHECK(said("MiniMax-M2's norms over every head's queries and keys are Megatron-Bridge's layer spec"));
  // torchtitan builds no MTP modules: said, and the closest simulated without them.
  PlanRequest titan = as_1f1b_runs(r);
  titan.training.loss = Loss::Torch;
  PlanRow sharded = row;
  sharded.sharding = Sharding::Params;
  const LaunchPlan t = torchtitan_launch(titan, sharded, {});
  REQUIRE(t.gaps.size() == 1);
  CHECK(t.gaps[0] ==
        "torchtitan's models have no multi-token prediction: it runs the row without the model's 2 MTP "
        "layers");
  CHECK(t.closest.has_value());
  PlanRequest titan_without = titan;  // the same model without its MTP layers: nothing to say, nothing to simulate
  titan_without.model.mtp_layers = 0;
  const LaunchPlan plain = torchtitan_launch(titan_without, sharded, {});
  CHECK(plain.gaps.empty());
  CHECK_FALSE(plain.closest.has_value());
  // Without either, neither note.
  const LaunchPlan llama = megatron_launch(tiny_request(), tiny_row("1f1b", 1, "E,t*3|t*5,H"));
  CHECK(std::none_of(llama.notes.begin(), llama.notes.end(), [](const std::string& n) {
    return n.find("multi-token") != std::string::npos || n.find("MiniMax") != std::string::npos;
  }));
}
