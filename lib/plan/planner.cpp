#include "plan/planner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "model/error.hpp"
#include "model/parallel_for.hpp"
#include "model/threads.hpp"
#include "plan/plan_evaluate.hpp"

namespace pipeplan {

namespace {

// How many jobs back the bar a job prunes with reaches: job i starts from the top steps of jobs
// 0 .. i - kBarLag - 1, merged in job order, and adds its own as it goes. What it skips then
// depends on the jobs alone, never on which thread finished first, so the counts (within memory,
// over memory, skipped) and the rows past the top are the same on any number of threads, the
// page's one included; with a bar shared as each job finished, 85 or 96 configurations of the same
// plan were within memory on 1 or 8 threads. A job waits for the jobs kBarLag back to finish, so
// more than about kBarLag threads gain nothing; fewer prune a little less than a bar shared at
// once did (docs/costs.md, "Pruning", has what it costs).
constexpr std::size_t kBarLag = 16;

// The bars of kBarLag's comment: each job's snapshot, and the jobs' steps merged in order.
class OrderedBar {
 public:
  OrderedBar(std::size_t jobs, std::size_t keep) : done_(jobs), global_(keep) {
    snapshots_.push_back(std::make_unique<TopSteps>(global_));
  }
  /// The steps job i starts from (jobs before i - kBarLag); waits for those jobs to finish.
  TopSteps start(std::size_t i) {
    const std::size_t need = i > kBarLag ? i - kBarLag : 0;
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return committed_ >= need; });
    return TopSteps(*snapshots_[need]);
  }
  /// Job i is done with `steps` (its start's and its own): merged once every job before it is.
  void finish(std::size_t i, const TopSteps& steps) {
    const std::lock_guard lock(mutex_);
    done_[i] = std::make_unique<TopSteps>(steps);
    while (committed_ < done_.size() && done_[committed_]) {
      global_.merge(*done_[committed_]);
      done_[committed_].reset();
      ++committed_;
      snapshots_.push_back(std::make_unique<TopSteps>(global_));  // snapshots_[k]: jobs 0 .. k-1
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<std::unique_ptr<TopSteps>> done_;  ///< a finished job's steps until merged
  std::vector<std::unique_ptr<TopSteps>> snapshots_;
  std::size_t committed_ = 0;
  TopSteps global_;
};

void rank(PlanOutcome& outcome) {
  std::stable_sort(outcome.rows.begin(), outcome.rows.end(), [](const PlanRow& a, const PlanRow& b) {
    if (a.tokens_per_s_per_gpu != b.tokens_per_s_per_gpu) return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
    return a.max_peak() < b.max_peak();
  });
  std::stable_sort(outcome.over_memory.begin(), outcome.over_memory.end(),
                   [](const PlanRow& a, const PlanRow& b) { return a.max_peak() < b.max_peak(); });
}

// Rows that differ only in the schedule's name, chunks and layout are shown once, the best, when
// their step and peak are the same (ZB-H1 and the automatic zero-bubble schedule can build one
// order). Under pp 1 the search tries one schedule only (search_space.cpp, one_device_schedule).
void merge_identical(PlanOutcome& outcome) {
  std::vector<PlanRow> kept;
  for (PlanRow& row : outcome.rows) {
    const bool same = std::any_of(kept.begin(), kept.end(), [&](const PlanRow& k) {
      return k.pp == row.pp && k.dp == row.dp && k.tp == row.tp && k.cp == row.cp && k.ep == row.ep &&
             k.etp == row.etp && k.micro_batch == row.micro_batch && k.microbatches == row.microbatches &&
             k.recompute == row.recompute && k.sharding == row.sharding && k.precision == row.precision &&
             k.step_ms == row.step_ms && k.max_peak() == row.max_peak();
    });
    if (same) {
      ++outcome.merged;
    } else {
      kept.push_back(std::move(row));
    }
  }
  outcome.rows = std::move(kept);
}

// A row's configuration evaluated again, with the automatic schedules' default search budget.
EvaluatedLayout evaluate_row(const PlanRequest& request, const PlanRow& row) {
  const Generator* g = find_generator(row.schedule);
  if (g == nullptr) throw Error("unknown schedule '" + row.schedule + "'");
  const PlanJob job{row.tp, row.pp, row.dp, row.chunks, row.microbatches, row.micro_batch, g, {}, 0, row.ep, row.cp};
  return evaluate_layout(request, job, row.training(request.training),
                         parse_layout(row.layout, request.model.layers, "the row's layout"), row.rank_order);
}

// The rows ranked with a smaller search budget for the automatic schedules, built again with
// their default one: the first `top` (every row when top is 0). Each row shown then is what
// `pipeplan generate` and rebuild_row build. A row built again may move, and bring a row not yet
// built again into the first `top`, so this repeats until the first `top` are all built in full.
void refine_top(const PlanRequest& request, PlanOutcome& outcome) {
  if (request.search_budget <= 0) return;
  const std::size_t count = request.top == 0 ? outcome.rows.size() : std::min(request.top, outcome.rows.size());
  bool again = true;
  while (again) {
    again = false;
    for (std::size_t i = 0; i < count; ++i) {
      PlanRow& row = outcome.rows[i];
      if (!row.partial_search) continue;
      PlanRow full = evaluate_row(request, row).row;
      row.partial_search = false;                        // whatever comes of it, not again
      if (full.max_peak() > row.memory_limit) continue;  // the generators keep to it; never show a row over it
      again = again || full.step_ms != row.step_ms;
      row = std::move(full);
    }
    if (again) rank(outcome);
  }
}

}  // namespace

Bytes PlanRow::max_peak() const {
  return peak_memory.empty() ? 0 : *std::max_element(peak_memory.begin(), peak_memory.end());
}

TrainingSettings PlanRow::training(const TrainingSettings& base) const {
  TrainingSettings t = base;
  t.tp = tp;
  t.cp = cp;
  t.ep = ep;
  t.micro_batch = micro_batch;
  t.recompute = recompute;
  t.recompute_layers = recompute_layers;
  t.recompute_modules = recompute_modules;
  t.sharding = sharding;
  t.dtype = precision.dtype;
  t.fp8 = precision.fp8;
  return t;
}

std::vector<std::string> default_plan_schedules() {
  return {"1f1b", "interleaved", "zbh1", "zbh2", "zbv", "v-half", "zb"};
}

std::vector<std::string> default_plan_schedules(const ModelConfig& model) {
  std::vector<std::string> out = default_plan_schedules();
  // DualPipeV's FB ops hide a mixture of experts' all-to-alls under the other chunk's compute.
  if (model.is_moe()) out.emplace_back("dualpipev");
  return out;
}

PlanOutcome plan(const PlanRequest& request, const std::function<void(std::size_t, std::size_t)>& progress) {
  if (request.comm == CommMode::Overlap && request.policy) {
    throw Error("a lowering policy applies to blocking or rendezvous communication, not overlap");
  }
  PlanOutcome outcome;
  outcome.experts = request.model.is_moe();
  outcome.precisions = request.precisions.size() > 1;
  const std::vector<PlanJob> jobs = plan_jobs(request, outcome.refused);
  for (const auto& [reason, count] : outcome.refused) outcome.considered += count;
  for (const PlanJob& job : jobs) outcome.considered += int(job.variants.size());
  std::vector<JobOutcome> results(jobs.size());
  OrderedBar bars(jobs.size(), request.top);
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};  // jobs, for the loop below
  // The progress counts configurations, as the summary does ("N configurations"): those refused
  // before the search are done at once, each job adds its variants. Counting jobs once showed a
  // total of 980 beside the 3632 configurations reported (issue 31, item 9).
  const auto total = static_cast<std::size_t>(outcome.considered);
  std::atomic<std::size_t> configurations{total - [&] {
    std::size_t searched = 0;
    for (const PlanJob& job : jobs) searched += job.variants.size();
    return searched;
  }()};
  const auto work = [&] {
    const ParallelWorker marked;  // the automatic schedules inside run sequentially: the pool has the cores
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      TopSteps top = bars.start(i);
      try {
        results[i] = evaluate_job(request, jobs[i], top);
      } catch (const std::exception& e) {  // out of memory: the rest go on
        results[i].refusals.emplace_back(job_title(jobs[i], jobs[i].variants.front()), e.what());
      }
      bars.finish(i, top);
      configurations += jobs[i].variants.size();
      ++done;
    }
  };
  const std::size_t cores = hardware_threads();
  const std::size_t threads =
      std::min<std::size_t>(request.threads > 0 ? static_cast<std::size_t>(request.threads) : cores, jobs.size());
  ThreadGroup pool;
  if (threads_available()) {
    for (std::size_t t = 0; t < threads; ++t) {
      try {
        pool.start(work);
      } catch (const std::system_error& e) {
        // Each thread reserves its stack: under a memory limit (ulimit -v) --threads 900 ran out
        // and said "internal error: Resource temporarily unavailable" (issue 31). The started
        // ones stop after their current job, and the flag is named.
        next = jobs.size();
        pool.join();
        throw Error((request.threads > 0 ? "--threads " + std::to_string(request.threads) + ": " : std::string()) +
                    "could start only " + std::to_string(t) + " of " + std::to_string(threads) + " threads (" +
                    e.what() + "; each reserves its stack under the memory limit): ask for fewer");
      }
    }
  } else {
    work();  // the one-thread path (the page): every job on this thread, then the loop below ends at once
  }
  auto last_report = std::chrono::steady_clock::now();
  while (done.load() < jobs.size()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (progress && std::chrono::steady_clock::now() - last_report >= std::chrono::milliseconds(100)) {
      last_report = std::chrono::steady_clock::now();
      progress(configurations.load(), total);
    }
  }
  pool.join();
  if (progress) progress(total, total);
  for (JobOutcome& r : results) {
    for (PlanRow& row : r.rows) outcome.rows.push_back(std::move(row));
    for (PlanRow& row : r.over_memory) outcome.over_memory.push_back(std::move(row));
    for (auto& [configuration, reason] : r.refusals) {
      if (++outcome.refused[reason] == 1) outcome.refused_example[reason] = configuration;
    }
    outcome.skipped += r.skipped;
  }
  rank(outcome);
  refine_top(request, outcome);
  merge_identical(outcome);
  return outcome;
}

PlannedRun rebuild_row(const PlanRequest& request, const PlanRow& row) {
  EvaluatedLayout e = evaluate_row(request, row);
  return {std::move(e.schedule), std::move(e.profile)};
}

}  // namespace pipeplan
