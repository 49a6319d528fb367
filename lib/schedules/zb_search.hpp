#pragma once
// The search behind the automatic schedules: candidates are simulated and kept only when they
// fit the memory limits and beat the best so far; then a local search moves W ops.
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/schedule.hpp"
#include "sim/simulator.hpp"

namespace pipeplan {

class ScheduleSearch {
 public:
  /// Budget of the local search, in simulated ops (each trial simulates the whole schedule).
  static constexpr long long kDefaultBudget = 100'000;

  /// How good a schedule is: a shorter makespan, then a shorter longest per-device span.
  struct Score {
    long long makespan;
    long long span;
    friend bool operator<(const Score& a, const Score& b) {
      return a.makespan != b.makespan ? a.makespan < b.makespan : a.span < b.span;
    }
  };

  ScheduleSearch(const CostModel& costs, std::vector<Bytes> limits, long long budget = kDefaultBudget)
      : costs_(costs), limits_(std::move(limits)), budget_(budget) {}

  /// Simulates `candidate`, which must hold every op once on the right device; keeps it when it runs to the end within every device's limit and is
  /// better than the best so far: a shorter makespan, or as short with a shorter longest span.
  void offer(Schedule candidate);

  /// A schedule to offer, with its score when its maker already knows it (a greedy pass whose
  /// ops all ran as early as possible): then it is not simulated again.
  struct Candidate {
    std::optional<Schedule> schedule;  ///< nullopt: none
    std::optional<Score> known_score;
  };

  /// offer() for `count` candidates made by make(i), made and scored on every core: the same
  /// best schedule and remaining budget as offering them one by one in index order. A candidate
  /// is dropped as soon as it loses, so few are alive at a time.
  void offer_all(std::size_t count, const std::function<Candidate(std::size_t)>& make);

  /// The best schedule after a local search that moves each W one place earlier or later while
  /// that makes the schedule better, until no move helps or the budget is spent. nullopt when no
  /// candidate fitted.
  [[nodiscard]] std::optional<Schedule> improve();

 private:
  std::optional<Score> score(const Schedule& s);
  bool try_swap(Schedule& s, std::size_t device, std::size_t i, std::size_t j);

  const CostModel& costs_;
  std::vector<Bytes> limits_;
  long long budget_;
  SimWorkspace workspace_;
  std::optional<Schedule> best_;
  Score best_score_{0, 0};
};

}  // namespace pipeplan
