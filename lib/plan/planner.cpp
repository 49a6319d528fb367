#include "plan/planner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "model/error.hpp"
#include "model/parallel_for.hpp"
#include "model/placement.hpp"
#include "schedules/generator.hpp"
#include "sim/simulator.hpp"

namespace pipeplan {

namespace {

struct Job {
  int pp, dp, chunks, microbatches;
  const Generator* generator;
};

struct Evaluated {
  PlannedRun run;
  PlanRow row;
};

int gpus_per_node(const PlanRequest& r) { return r.gpus_per_node > 0 ? r.gpus_per_node : r.gpu->gpus_per_node; }
Bytes memory_limit(const PlanRequest& r) { return r.memory_limit > 0 ? r.memory_limit : r.gpu->memory_bytes; }

// The chunk counts worth trying for a generator: its only one, or 2 up to max_chunks (1 too for
// an automatic schedule, whose single chunk is not another generator's schedule).
std::vector<int> chunk_choices(const Generator& g, int max_chunks) {
  std::vector<int> out;
  if (g.min_chunks == g.max_chunks) return {g.min_chunks};
  const int first = g.uses_costs ? g.min_chunks : std::max(2, g.min_chunks);
  for (int v = first; v <= std::min(g.max_chunks, max_chunks); ++v) out.push_back(v);
  return out;
}

const MeasuredPieces* measured_of(const PlanRequest& r) { return r.measured ? &*r.measured : nullptr; }

// The layouts to try, in order: the given one, or the stages balanced by time and then tilted
// ever more towards lighter first stages (balanced_layout), without repeats.
std::vector<Layout> layouts_for(const PlanRequest& r, int stages) {
  if (r.layout) return {parse_layout(*r.layout, r.model.layers, "--layout")};
  const PieceTotals t = piece_totals(r.model, r.training, *r.gpu, r.efficiency, measured_of(r));
  std::vector<Layout> out;
  std::vector<std::string> seen;
  for (double tilt : {0.0, 0.5, 1.0, 2.0}) {
    Layout l = balanced_layout(stages, r.model.layers, t.embedding, t.layer, t.head, tilt);
    std::string text = layout_string(l);
    if (std::find(seen.begin(), seen.end(), text) != seen.end()) continue;
    seen.push_back(std::move(text));
    out.push_back(std::move(l));
  }
  return out;
}

Evaluated evaluate_layout(const PlanRequest& r, const Job& job, const Layout& layout) {
  std::vector<int> placement = loop_placement(job.pp, job.chunks);
  const auto profile_for = [&](const std::vector<int>& where) {
    return analytic_profile(r.model, r.training, *r.gpu, r.efficiency, layout,
                            {where, job.pp, job.dp, gpus_per_node(r)}, measured_of(r));
  };
  AnalyticProfile profile = profile_for(placement);
  GenerateRequest request{job.pp, job.microbatches, job.chunks, 0, &profile.costs, {memory_limit(r)},
                          r.optimizer_mode, r.iterations};
  Schedule schedule = job.generator->generate(request);
  if (schedule.placement != placement) {  // a V-shaped schedule: its devices hold other stages
    placement = schedule.placement;
    profile = profile_for(placement);
    request.costs = &profile.costs;
    schedule = job.generator->generate(request);
  }
  SimOptions options;
  options.record_timeline = false;
  options.optimizer_mode = r.optimizer_mode;
  options.iterations = r.iterations;
  const SimResult result = simulate(schedule, profile.costs, options);
  if (result.deadlocked()) throw Error(std::string(job.generator->name) + ": the generated schedule deadlocks");

  PlanRow row;
  row.pp = job.pp;
  row.dp = job.dp;
  row.tp = r.training.tp;
  row.chunks = job.chunks;
  row.microbatches = job.microbatches;
  row.schedule = std::string(job.generator->name);
  row.layout = layout_string(layout);
  row.step_ms = ns_to_ms(result.step_time());
  row.bubble_rate = result.bubble_rate();
  for (const DeviceTimeline& d : result.devices) row.peak_memory.push_back(d.peak_memory);
  row.memory_limit = memory_limit(r);
  const double step_s = row.step_ms / 1e3;
  const double tokens = double(r.training.global_batch) * r.training.seq;
  row.tokens_per_s_per_gpu = tokens / step_s / r.gpus;
  const double flops = profile.model_flops_per_microbatch * job.microbatches * job.dp;
  row.mfu = flops / step_s / (double(r.gpus) * r.gpu->peak_flops(r.training.dtype));
  return {{std::move(schedule), std::move(profile)}, std::move(row)};
}

// The first layout whose run fits in memory; when none does, the one that comes closest. A
// refusal (a generator that cannot build for these costs) counts only if every layout is refused.
Evaluated evaluate(const PlanRequest& r, const Job& job) {
  std::optional<Evaluated> closest;
  std::optional<Error> first_refusal;
  for (const Layout& layout : layouts_for(r, job.pp * job.chunks)) {
    try {
      Evaluated e = evaluate_layout(r, job, layout);
      if (e.row.max_peak() <= e.row.memory_limit) return e;
      if (!closest || e.row.max_peak() < closest->row.max_peak()) closest = std::move(e);
    } catch (const Error& error) {
      if (!first_refusal) first_refusal = error;
    }
  }
  if (closest) return std::move(*closest);
  throw *first_refusal;
}

std::vector<Job> enumerate(const PlanRequest& r, PlanOutcome& outcome) {
  if (r.gpu == nullptr) throw Error("the planner needs a GPU");
  if (r.gpus < 1 || r.gpus % r.training.tp != 0) {
    throw Error("--gpus " + std::to_string(r.gpus) + ": must be a multiple of --tp " + std::to_string(r.training.tp));
  }
  if (r.training.global_batch < 1) throw Error("--global-batch: the planner needs the sequences per step");
  std::vector<const Generator*> chosen;
  for (const std::string& name : r.schedules) {
    const Generator* g = find_generator(name);
    if (g == nullptr) throw Error("--schedules: unknown schedule '" + name + "' ('pipeplan list' shows them all)");
    chosen.push_back(g);
  }
  // A given layout fixes the stage count; 0 when none is given.
  const std::size_t fixed_stages = r.layout ? parse_layout(*r.layout, r.model.layers, "--layout").size() : 0;
  const int ranks = r.gpus / r.training.tp;
  std::vector<Job> jobs;
  bool any_batch_fits = false;
  for (int pp = 1; pp <= ranks; ++pp) {
    if (ranks % pp != 0) continue;
    const int dp = ranks / pp;
    const long per_step = long(r.training.micro_batch) * dp;
    if (r.training.global_batch % per_step != 0) {
      ++outcome.refused["the global batch does not split into micro-batches over the data-parallel replicas"];
      continue;
    }
    any_batch_fits = true;
    const long microbatches = r.training.global_batch / per_step;
    if (microbatches > kMaxMicrobatches) {
      ++outcome.refused["more micro-batches than the limit of " + std::to_string(kMaxMicrobatches)];
      continue;
    }
    for (const Generator* g : chosen) {
      for (int v : chunk_choices(*g, r.max_chunks)) {
        const int stages = pp * v;
        if (fixed_stages > 0 ? std::size_t(stages) != fixed_stages : stages > r.model.layers + 2) continue;
        jobs.push_back({pp, dp, v, int(microbatches), g});
      }
    }
  }
  if (!any_batch_fits) {
    throw Error("--global-batch " + std::to_string(r.training.global_batch) + ": no data-parallel degree of " +
                std::to_string(ranks) + " pipeline ranks splits it into micro-batches of " +
                std::to_string(r.training.micro_batch));
  }
  return jobs;
}

// The generator's message, starting with its name once.
std::string refusal(const Generator& g, std::string_view message) {
  const std::string prefix = std::string(g.name) + ":";
  return message.starts_with(prefix) ? std::string(message) : prefix + " " + std::string(message);
}

void rank(PlanOutcome& outcome) {
  std::stable_sort(outcome.rows.begin(), outcome.rows.end(), [](const PlanRow& a, const PlanRow& b) {
    if (a.tokens_per_s_per_gpu != b.tokens_per_s_per_gpu) return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
    return a.max_peak() < b.max_peak();
  });
  std::stable_sort(outcome.over_memory.begin(), outcome.over_memory.end(),
                   [](const PlanRow& a, const PlanRow& b) { return a.max_peak() < b.max_peak(); });
}

}  // namespace

Bytes PlanRow::max_peak() const {
  return peak_memory.empty() ? 0 : *std::max_element(peak_memory.begin(), peak_memory.end());
}

std::vector<std::string> default_plan_schedules() {
  return {"1f1b", "interleaved", "zbh1", "zbh2", "zbv", "v-half", "zb"};
}

PlanOutcome plan(const PlanRequest& request, const std::function<void(std::size_t, std::size_t)>& progress) {
  PlanOutcome outcome;
  const std::vector<Job> jobs = enumerate(request, outcome);
  outcome.considered = int(jobs.size()) + [&] {
    int n = 0;
    for (const auto& [reason, count] : outcome.refused) n += count;
    return n;
  }();
  std::vector<std::optional<PlanRow>> rows(jobs.size());
  std::vector<std::string> refusals(jobs.size());
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  const auto work = [&] {
    const ParallelWorker marked;  // the automatic schedules inside run sequentially: the pool has the cores
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      try {
        rows[i] = evaluate(request, jobs[i]).row;
      } catch (const std::exception& e) {  // an Error, or out of memory: the rest go on
        refusals[i] = refusal(*jobs[i].generator, e.what());
      }
      ++done;
    }
  };
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>(request.threads > 0 ? static_cast<std::size_t>(request.threads) : cores, jobs.size());
  std::vector<std::jthread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(work);
  auto last_report = std::chrono::steady_clock::now();
  while (done.load() < jobs.size()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (progress && std::chrono::steady_clock::now() - last_report >= std::chrono::milliseconds(100)) {
      last_report = std::chrono::steady_clock::now();
      progress(done.load(), jobs.size());
    }
  }
  pool.clear();  // joins
  if (progress) progress(jobs.size(), jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!rows[i]) {
      ++outcome.refused[refusals[i]];
    } else if (rows[i]->max_peak() > rows[i]->memory_limit) {
      outcome.over_memory.push_back(std::move(*rows[i]));
    } else {
      outcome.rows.push_back(std::move(*rows[i]));
    }
  }
  rank(outcome);
  return outcome;
}

PlannedRun rebuild_row(const PlanRequest& request, const PlanRow& row) {
  const Generator* g = find_generator(row.schedule);
  if (g == nullptr) throw Error("unknown schedule '" + row.schedule + "'");
  return evaluate_layout(request, {row.pp, row.dp, row.chunks, row.microbatches, g},
                         parse_layout(row.layout, request.model.layers, "the row's layout"))
      .run;
}

}  // namespace pipeplan
