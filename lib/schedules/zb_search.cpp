#include "schedules/zb_search.hpp"

#include <algorithm>
#include <mutex>

#include "model/parallel_for.hpp"
#include "sim/simulator.hpp"

namespace pipeplan {

namespace {

// A device's memory depends only on the order of its own ops, not on when they run, so the
// limit can be checked without timing anything.
bool fits_limits(const Schedule& s, const CostModel& costs, const std::vector<Bytes>& limits) {
  for (std::size_t d = 0; d < s.order.size(); ++d) {
    Bytes memory = costs.devices[d].static_memory_bytes;
    for (const Op& op : s.order[d]) {
      const StageCost& c = costs.stages[static_cast<std::size_t>(op.stage)];
      switch (op.kind) {
        case OpKind::F:
          memory += c.activation_bytes;
          if (memory > limits[d]) return false;
          break;
        case OpKind::B: memory -= c.activation_bytes - c.w_activation_bytes; break;
        case OpKind::W: memory -= c.w_activation_bytes; break;
        case OpKind::BW: memory -= c.activation_bytes; break;
        case OpKind::FB: {
          memory += c.activation_bytes;
          if (memory > limits[d]) return false;
          memory -= costs.stages[static_cast<std::size_t>(op.overlap_stage)].activation_bytes;
          break;
        }
      }
    }
  }
  return true;
}

}  // namespace

// The makespan and longest span of `s`, or nullopt when it deadlocks.
std::optional<ScheduleSearch::Score> timed_score(const Schedule& s, const CostModel& costs, SimWorkspace& workspace) {
  SimOptions options;
  options.record_timeline = false;
  SimResult r = simulate_trusted(s, costs, options, workspace);
  if (r.deadlocked()) return std::nullopt;
  SimTime span = 0;
  for (const DeviceTimeline& d : r.devices) span = std::max(span, d.iterations.front().span());
  return ScheduleSearch::Score{r.makespan, span};
}

std::optional<ScheduleSearch::Score> ScheduleSearch::score(const Schedule& s) {
  if (!fits_limits(s, costs_, limits_)) return std::nullopt;
  budget_ -= static_cast<long long>(s.op_count());
  return timed_score(s, costs_, workspace_);
}

void ScheduleSearch::offer_all(std::size_t count, const std::function<Candidate(std::size_t)>& make) {
  // Ranks keep the sequential order's ties: the best so far (rank 0) beats an equal candidate,
  // and of equal candidates the lower index wins, whichever finishes first.
  std::size_t best_rank = 0;
  std::mutex mutex;
  std::vector<SimWorkspace> workspaces(parallel_workers(count));
  parallel_for_with_worker(count, [&](std::size_t i, std::size_t worker) {
    Candidate made = make(i);
    std::optional<Schedule>& candidate = made.schedule;
    if (!candidate || !fits_limits(*candidate, costs_, limits_)) return;
    const std::optional<Score> s =
        made.known_score ? made.known_score : timed_score(*candidate, costs_, workspaces[worker]);
    const std::lock_guard lock(mutex);
    budget_ -= static_cast<long long>(candidate->op_count());
    if (!s) return;
    const std::size_t rank = i + 1;
    const bool better = !best_ || *s < best_score_ || (!(best_score_ < *s) && rank < best_rank);
    if (!better) return;
    best_ = std::move(*candidate);
    best_score_ = *s;
    best_rank = rank;
  });
}

void ScheduleSearch::offer(Schedule candidate) {
  std::optional<Score> s = score(candidate);
  if (!s || (best_ && !(*s < best_score_))) return;
  best_ = std::move(candidate);
  best_score_ = *s;
}

// Swaps ops i and j (adjacent) of a device when that keeps each W after its own B, and keeps
// the swap only when the schedule gets better.
bool ScheduleSearch::try_swap(Schedule& s, std::size_t device, std::size_t i, std::size_t j) {
  auto& ops = s.order[device];
  const Op& first = ops[std::min(i, j)];
  const Op& second = ops[std::max(i, j)];
  if (second.kind == OpKind::W && first.kind == OpKind::B && first.stage == second.stage &&
      first.microbatch == second.microbatch) {
    return false;
  }
  std::swap(ops[i], ops[j]);
  std::optional<Score> after = score(s);
  if (after && *after < best_score_) {
    best_score_ = *after;
    return true;
  }
  std::swap(ops[i], ops[j]);
  return false;
}

std::optional<Schedule> ScheduleSearch::improve() {
  if (!best_) return std::nullopt;
  Schedule& s = *best_;
  bool improved = true;
  while (improved && budget_ > 0) {
    improved = false;
    for (std::size_t d = 0; d < s.order.size() && budget_ > 0; ++d) {
      for (std::size_t i = 0; i < s.order[d].size() && budget_ > 0; ++i) {
        if (s.order[d][i].kind != OpKind::W) continue;
        if (i > 0 && try_swap(s, d, i, i - 1)) {
          improved = true;
        } else if (i + 1 < s.order[d].size() && try_swap(s, d, i, i + 1)) {
          improved = true;
          ++i;  // the W moved on; look at what came after it
        }
      }
    }
  }
  return std::move(best_);
}

}  // namespace pipeplan
