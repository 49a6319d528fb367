// Benchmarks (Google Benchmark): simulation throughput and scaling, and the automatic
// zero-bubble scheduler at the sizes the ZB paper reports for its Python implementation, and the
// planner on Llama-3-70B over 64 GPUs.
// Run with `cmake --build build --target bench`; docs/performance.md keeps the figures.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <string_view>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/schedule_json.hpp"
#include "io/schedule_text.hpp"
#include "lower/lowering.hpp"
#include "model/memory_reuse.hpp"
#include "plan/planner.hpp"
#include "sim/comm_simulator.hpp"
#include "schedules/generator.hpp"
#include "sim/simulator.hpp"

namespace {

using namespace pipeplan;

GenerateRequest request(int p, int m, int v) {
  GenerateRequest r;
  r.devices = p;
  r.microbatches = m;
  r.chunks = v;
  return r;
}

// The unequal costs: F = 1, B = 1.2, W = 0.8 ms, transfer 0.1 ms; the last stage, with
// the head and the loss, 1.5 times heavier.
CostModel unequal_costs(int stages, int devices) {
  CostModel c = uniform_costs(stages, devices, StageCost{1, 1.2, 0.8, 100, 25}, 0.1);
  c.stages.back() = StageCost{1.5, 1.8, 1.2, 150, 40};
  return c;
}

// Simulating a schedule of P devices, V chunks and M micro-batches with `run`; items are ops.
template <class Run>
void time_simulations(benchmark::State& state, const char* name, Run run) {
  const int p = static_cast<int>(state.range(0));
  const int v = static_cast<int>(state.range(1));
  const int m = static_cast<int>(state.range(2));
  const Schedule s = find_generator(name)->generate(request(p, m, v));
  const CostModel c = unequal_costs(s.stages, p);
  for (auto _ : state) {
    SimResult r = run(s, c);
    benchmark::DoNotOptimize(r.makespan);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(s.op_count()));
  state.counters["ops"] = static_cast<double>(s.op_count());
}

void simulate_schedule(benchmark::State& state, const char* name) {
  time_simulations(state, name, [](const Schedule& s, const CostModel& c) { return simulate(s, c); });
}

void BM_SimulateZbh1(benchmark::State& state) { simulate_schedule(state, "zbh1"); }

// simulate() with every check (structure, costs, lower bound) but without recording each op's
// timing and the memory timeline: what a sweep that reads only the summary pays.
void BM_SimulateZbh1Summary(benchmark::State& state) {
  SimOptions options;
  options.record_timeline = false;
  time_simulations(state, "zbh1", [&](const Schedule& s, const CostModel& c) { return simulate(s, c, options); });
}
BENCHMARK(BM_SimulateZbh1Summary)->Args({32, 1, 512})->Args({128, 1, 4096})->Unit(benchmark::kMillisecond);

// The search's path: no structural check, no timeline, buffers kept between runs. The
// difference to BM_SimulateZbh1 is mostly the cost of touching fresh memory.
void BM_SimulateZbh1Reused(benchmark::State& state) {
  SimOptions options;
  options.record_timeline = false;
  SimWorkspace workspace;
  time_simulations(state, "zbh1", [&](const Schedule& s, const CostModel& c) {
    return simulate_trusted(s, c, options, workspace);
  });
}
void BM_SimulateInterleaved(benchmark::State& state) { simulate_schedule(state, "interleaved"); }

// From 12 thousand to 1.5 million ops (ZB-H1 has 3PM ops, interleaved 2PVM).
BENCHMARK(BM_SimulateZbh1)->Args({16, 1, 256})->Args({32, 1, 512})->Args({64, 1, 1024})->Args({128, 1, 4096})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateZbh1Reused)->Args({32, 1, 512})->Args({128, 1, 4096})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateInterleaved)->Args({16, 2, 320})->Args({64, 4, 512})->Args({128, 4, 1024})
    ->Unit(benchmark::kMillisecond);

// Simulating ZB-H1 with its sends and receives (timed lowering, made once) under rendezvous
// communication; items are compute ops, as in BM_SimulateZbh1, so the two compare directly.
void BM_SimulateRendezvous(benchmark::State& state) {
  const int p = static_cast<int>(state.range(0));
  const int m = static_cast<int>(state.range(1));
  const Schedule s = find_generator("zbh1")->generate(request(p, m, 1));
  const CostModel c = unequal_costs(p, p);
  const LoweredSchedule lowered = lower(s, LowerPolicy::Timed, &c);
  for (auto _ : state) {
    CommSimResult r = simulate_with_comm(lowered, c, CommMode::Rendezvous);
    benchmark::DoNotOptimize(r.result.makespan);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(s.op_count()));
  state.counters["ops"] = static_cast<double>(s.op_count());
}
BENCHMARK(BM_SimulateRendezvous)->Args({32, 512})->Args({128, 4096})->Unit(benchmark::kMillisecond);

// The automatic scheduler under the memory of 2P micro-batches, minimising the makespan (third
// argument 0: sync) or the longest span (1: post-validation). The ZB paper reports about 0.5 s
// for P = 32, M = 256 and 3 s for P = 64, M = 512 with its Python implementation; the counter
// `paper_over_this` is that time over ours (a comparison across machines, so a rough one).
void BM_AutoZeroBubble(benchmark::State& state) {
  const int p = static_cast<int>(state.range(0));
  const int m = static_cast<int>(state.range(1));
  const double paper_seconds = p == 32 ? 0.5 : 3.0;
  CostModel c = unequal_costs(p, p);
  GenerateRequest r = request(p, m, 1);
  r.costs = &c;
  r.memory_limit = {Bytes{2} * p * 150};
  r.objective = state.range(2) == 0 ? OptimizerMode::Sync : OptimizerMode::PostValidation;
  Schedule s;
  for (auto _ : state) {
    s = find_generator("zb")->generate(r);
    benchmark::DoNotOptimize(s.order.data());
  }
  state.counters["makespan_ms"] = ns_to_ms(simulate(s, c).makespan);
  state.counters["paper_over_this"] =
      benchmark::Counter(paper_seconds * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_AutoZeroBubble)
    ->Args({32, 256, 0})
    ->Args({64, 512, 0})
    ->Args({32, 256, 1})
    ->Args({64, 512, 1})
    ->Unit(benchmark::kMillisecond);

// PyTorch's interleaved zero bubble, generated (P, V, M): a handcrafted order, linear in the ops.
void BM_GenerateInterleavedZeroBubble(benchmark::State& state) {
  const GenerateRequest r = request(static_cast<int>(state.range(0)), static_cast<int>(state.range(2)),
                                    static_cast<int>(state.range(1)));
  std::size_t ops = 0;
  for (auto _ : state) {
    Schedule s = find_generator("interleaved-zb")->generate(r);
    ops = s.op_count();
    benchmark::DoNotOptimize(s.order.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(ops));
}
BENCHMARK(BM_GenerateInterleavedZeroBubble)->Args({64, 2, 512})->Args({128, 4, 1024})->Unit(benchmark::kMillisecond);

// Writing and reading a schedule file of a million ops (ZB-H1, P = 128, M = 2731: 1,049,088
// ops, about 56 MB): the text written straight from the ops and the file replaced atomically;
// the file read back, through the one-pass scanner. Items are ops.
const Schedule& million_op_schedule() {
  static const Schedule s = find_generator("zbh1")->generate(request(128, 2731, 1));
  return s;
}

std::string bench_file() { return (std::filesystem::temp_directory_path() / "pipeplan-bench-schedule.json").string(); }

void BM_ScheduleFileWrite(benchmark::State& state) {
  const Schedule& s = million_op_schedule();
  for (auto _ : state) write_file_atomically(bench_file(), schedule_json_text(s));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(s.op_count()));
  state.counters["bytes"] = static_cast<double>(std::filesystem::file_size(bench_file()));
}
BENCHMARK(BM_ScheduleFileWrite)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ScheduleFileRead(benchmark::State& state) {
  const Schedule& s = million_op_schedule();
  write_file_atomically(bench_file(), schedule_json_text(s));
  for (auto _ : state) {
    Schedule back = read_schedule_file(bench_file());
    benchmark::DoNotOptimize(back.order.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(s.op_count()));
  std::remove(bench_file().c_str());
}
BENCHMARK(BM_ScheduleFileRead)->Unit(benchmark::kMillisecond)->UseRealTime();

// The planner on Llama-3-70B (global batch 4 x GPUs sequences of 4096 tokens) searching
// everything: tensor parallelism, micro-batch size, recompute and sharding beside pipeline
// degree, chunks, layout and the default schedules, ranking the top 5 exactly as `plan` does.
// Arguments: GPUs, threads (0: every core). Items are configurations.
void BM_Planner(benchmark::State& state) {
  PlanRequest r;
  r.model = read_model_config_file(PIPEPLAN_SOURCE_DIR "/profiles/models/llama-3-70b.json");
  r.training.seq = 4096;
  r.gpu = &gpu_named("h100");
  r.gpus = static_cast<int>(state.range(0));
  r.training.global_batch = 4 * r.gpus;
  r.schedules = default_plan_schedules();
  r.top = 5;
  r.threads = static_cast<int>(state.range(1));
  std::size_t configurations = 0;
  std::size_t fitting = 0;
  std::size_t skipped = 0;
  for (auto _ : state) {
    PlanOutcome out = plan(r);
    configurations = static_cast<std::size_t>(out.considered);
    fitting = out.rows.size();
    skipped = static_cast<std::size_t>(out.skipped);
    benchmark::DoNotOptimize(out.rows.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(configurations));
  state.counters["configurations"] = static_cast<double>(configurations);
  state.counters["within_memory"] = static_cast<double>(fitting);
  state.counters["skipped"] = static_cast<double>(skipped);
}
BENCHMARK(BM_Planner)->Args({64, 0})->Args({512, 0})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

// Runs the benchmarks in a process set up as the pipeplan command sets itself up: freed memory is
// kept for reuse (model/memory_reuse.hpp). `--return-freed-memory` leaves glibc's defaults, to
// see what first touches of fresh pages cost on this machine.
int main(int argc, char** argv) {
  std::vector<char*> args;
  bool keep = true;
  for (int i = 0; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--return-freed-memory") {
      keep = false;
    } else {
      args.push_back(argv[i]);
    }
  }
  if (keep) pipeplan::keep_freed_memory_for_reuse();
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::AddCustomContext("freed_memory", keep ? "kept for reuse" : "returned to the system (glibc defaults)");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
