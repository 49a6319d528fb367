#include "schedules/zb_search.hpp"

#include <algorithm>
#include <mutex>

#include "model/parallel_for.hpp"
#include "sim/simulator.hpp"

namespace pipeplan {

namespace {

// What `op` does to the memory of its device, which holds `memory` before it; false when its
// allocation passes `limit`. A device's memory depends only on the order of its own ops, not on
// when they run, so the limit can be checked without timing anything.
bool memory_step(const CostModel& costs, const Op& op, Bytes& memory, Bytes limit) {
  const StageCost& c = costs.stages[static_cast<std::size_t>(op.stage)];
  switch (op.kind) {
    case OpKind::F:
      memory += c.activation_bytes;
      return memory <= limit;
    case OpKind::B:
      memory -= c.activation_bytes - c.w_activation_bytes;
      return true;
    case OpKind::W:
      memory -= c.w_activation_bytes;
      return true;
    case OpKind::BW:
      memory -= c.activation_bytes;
      return true;
    case OpKind::FB: {
      const StageCost& back = costs.stages[static_cast<std::size_t>(op.overlap_stage)];
      const Bytes held = fb_held_bytes(c.activation_bytes, c.layer_activation_bytes, back.activation_bytes,
                                       back.layer_activation_bytes);
      if (memory + held > limit) return false;
      memory += c.activation_bytes - back.activation_bytes;
      return true;
    }
  }
  return true;
}

bool fits_limit(const Schedule& s, const CostModel& costs, const std::vector<Bytes>& limits, std::size_t d) {
  Bytes memory = costs.devices[d].static_memory_bytes;
  for (const Op& op : s.order[d]) {
    if (!memory_step(costs, op, memory, limits[d])) return false;
  }
  return true;
}

bool fits_limits(const Schedule& s, const CostModel& costs, const std::vector<Bytes>& limits) {
  for (std::size_t d = 0; d < s.order.size(); ++d) {
    if (!fits_limit(s, costs, limits, d)) return false;
  }
  return true;
}

// The score of a one-iteration run: the step is the makespan under sync, the longest span under
// post-validation (see Score).
ScheduleSearch::Score one_iteration_score(long long makespan, long long span, OptimizerMode mode) {
  return {mode == OptimizerMode::Sync ? makespan : span, makespan, span};
}

// The score of a simulated run under `objective`.
ScheduleSearch::Score result_score(const SimResult& r, const SearchObjective& objective) {
  SimTime span = 0;
  for (const DeviceTimeline& d : r.devices) span = std::max(span, d.iterations.front().span());
  if (objective.iterations != 1) return {r.step_time(), r.makespan, span};
  return one_iteration_score(r.makespan, span, objective.mode);
}

// The score of `s` under `objective`, or nullopt when it deadlocks.
std::optional<ScheduleSearch::Score> timed_score(const Schedule& s, const CostModel& costs,
                                                 const SearchObjective& objective, SimWorkspace& workspace) {
  SimOptions options;
  options.record_timeline = false;
  options.iterations = objective.iterations;
  options.optimizer_mode = objective.mode;
  SimResult r = simulate_trusted(s, costs, options, workspace);
  if (r.deadlocked()) return std::nullopt;
  return result_score(r, objective);
}

}  // namespace

std::vector<Bytes> ScheduleSearch::memory_profile(const Schedule& s, std::size_t device) const {
  std::vector<Bytes> before{costs_.devices[device].static_memory_bytes};
  before.reserve(s.order[device].size() + 1);
  for (const Op& op : s.order[device]) {
    Bytes memory = before.back();
    (void)memory_step(costs_, op, memory, limits_[device]);
    before.push_back(memory);
  }
  return before;
}

bool ScheduleSearch::fits_places(const Schedule& s, std::size_t device, std::size_t low, std::size_t high,
                                 Bytes before) const {
  for (std::size_t k = low; k <= high; ++k) {
    if (!memory_step(costs_, s.order[device][k], before, limits_[device])) return false;
  }
  return true;
}

ScheduleSearch::Score ScheduleSearch::score_of_result(const SimResult& r) const {
  return result_score(r, objective_);
}

std::optional<ScheduleSearch::Score> ScheduleSearch::score_of(long long makespan, long long span) const {
  if (objective_.iterations != 1) return std::nullopt;
  return one_iteration_score(makespan, span, objective_.mode);
}

bool ScheduleSearch::better(const Score& a, const Score& b) const {
  if (a.step != b.step) return a.step < b.step;
  return better_in_other_mode(a, b) && !(a.makespan == b.makespan && a.span == b.span);
}

// Ranks by the other mode's measure first: span then makespan under sync, makespan then span
// under post-validation.
bool ScheduleSearch::better_in_other_mode(const Score& a, const Score& b) const {
  if (objective_.mode == OptimizerMode::Sync) return a.span != b.span ? a.span < b.span : a.makespan < b.makespan;
  return a.makespan != b.makespan ? a.makespan < b.makespan : a.span < b.span;
}

std::optional<ScheduleSearch::Score> ScheduleSearch::score(const Schedule& s) {
  if (!fits_limits(s, costs_, limits_)) return std::nullopt;
  budget_ -= static_cast<long long>(s.op_count()) * objective_.iterations;
  return timed_score(s, costs_, objective_, workspace_);
}

void ScheduleSearch::offer_all(std::size_t count, const std::function<Candidate(std::size_t)>& make) {
  // Ranks keep the sequential order's ties: the best so far (rank 0) beats an equal candidate,
  // and of equal candidates the lower index wins, whichever finishes first.
  std::size_t best_rank = 0;
  std::size_t second_rank = 0;
  std::mutex mutex;
  std::vector<SimWorkspace> workspaces(parallel_workers(count));
  parallel_for_with_worker(count, [&](std::size_t i, std::size_t worker) {
    Candidate made = make(i);
    std::optional<Schedule>& candidate = made.schedule;
    if (!candidate || !fits_limits(*candidate, costs_, limits_)) return;
    const std::optional<Score> s =
        made.known_score ? made.known_score : timed_score(*candidate, costs_, objective_, workspaces[worker]);
    const std::lock_guard lock(mutex);
    budget_ -= static_cast<long long>(candidate->op_count()) * objective_.iterations;
    if (!s) return;
    const std::size_t rank = i + 1;
    const bool second = !second_ || better_in_other_mode(*s, second_score_) ||
                        (!better_in_other_mode(second_score_, *s) && rank < second_rank);
    if (second) {
      second_ = *candidate;
      second_score_ = *s;
      second_rank = rank;
    }
    const bool wins = !best_ || better(*s, best_score_) || (!better(best_score_, *s) && rank < best_rank);
    if (!wins) return;
    best_ = std::move(*candidate);
    best_score_ = *s;
    best_rank = rank;
  });
}

void ScheduleSearch::offer(Schedule candidate) {
  std::optional<Score> s = score(candidate);
  if (!s) return;
  if (!second_ || better_in_other_mode(*s, second_score_)) {
    second_ = candidate;
    second_score_ = *s;
  }
  if (best_ && !better(*s, best_score_)) return;
  best_ = std::move(candidate);
  best_score_ = *s;
}

}  // namespace pipeplan
