#pragma once
// The search behind the automatic schedules: candidates are scored under the objective (the
// step under an optimizer mode) and kept only when they fit the memory limits and beat the best
// so far; then a local search walks from the best (zb_local_search.cpp).
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/schedule.hpp"
#include "sim/simulator.hpp"

namespace pipeplan {

class IncrementalTimer;

/// What the search minimises: the step time the schedule costs under an optimizer mode, over
/// `iterations` back-to-back steps.
struct SearchObjective {
  OptimizerMode mode = OptimizerMode::Sync;
  int iterations = 1;
};

class ScheduleSearch {
 public:
  /// Budget of the search, in timed ops: a candidate or a trial simulated in full costs every
  /// op of the schedule, a trial re-timed incrementally the ops its re-timing touched.
  static constexpr long long kDefaultBudget = 1'000'000;

  /// How good a schedule is. `step` is what a training step costs under the objective. With one
  /// iteration, sync makes every device wait for the last before stepping, so the step is the
  /// makespan; post-validation lets each device step on its own and start the next iteration at
  /// once, so the staggered start is not paid and the longest per-device span (first op to last
  /// op of one device, the paper's Table 5 metric) is the step. With several iterations, the
  /// simulated steady state (SimResult::step_time). Ties go to the shorter makespan, then span.
  struct Score {
    long long step;
    long long makespan;
    long long span;
  };

  ScheduleSearch(const CostModel& costs, std::vector<Bytes> limits, long long budget = kDefaultBudget,
                 SearchObjective objective = SearchObjective())
      : costs_(costs), limits_(std::move(limits)), budget_(budget), objective_(objective) {}

  /// The score of a one-iteration run with this makespan and longest span, when the objective
  /// needs nothing more (one iteration); nullopt when it needs the steady state simulated.
  [[nodiscard]] std::optional<Score> score_of(long long makespan, long long span) const;

  /// Whether `a` is strictly better than `b` under the objective.
  [[nodiscard]] bool better(const Score& a, const Score& b) const;

  /// Simulates `candidate`, which must hold every op once on the right device; keeps it when it runs to the end within
  /// every device's limit and is better than the best so far under the objective.
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

  /// The best schedule after a local search from the best candidate, with moves aimed at the
  /// idle gaps of the devices that set the step (zb_local_search.cpp), until no move helps or
  /// the budget is spent. nullopt when no candidate fitted.
  [[nodiscard]] std::optional<Schedule> improve();

  /// How many schedules the local search has timed so far (its trials), each move's re-timing
  /// counted as one (bench/, BM_LocalSearchTrials).
  [[nodiscard]] long long trials() const { return trials_; }

  /// How the local search times a move. Incremental re-times only the ops the move can change
  /// (sim/incremental_timer.hpp) and spends that many ops of the budget: the same walk, with the
  /// same times, goes on for more moves. It applies to one iteration with no zero-time op;
  /// otherwise, and with Full, each trial simulates the whole schedule (the bench compares
  /// both).
  enum class Retiming : unsigned char { Incremental, Full };
  void set_retiming(Retiming retiming) { retiming_ = retiming; }

 private:
  /// The score of a simulated run under the objective.
  [[nodiscard]] Score score_of_result(const SimResult& r) const;

  /// A state of the local search: its score, and under the mode that steers the walk its step
  /// and the sum over devices of what each weighs in it (span under post-validation, end under
  /// sync).
  struct Walk {
    Score score;
    long long step;  ///< what the walk minimises first (see walk_from)
    long long total;
    long long ends;  ///< the sum of every op's end: less when work moves earlier
  };

  std::optional<Score> score(const Schedule& s);
  /// Simulates `s` (spending budget); nullopt when it deadlocks. Keeps the run in `timeline`
  /// with every op's times when given.
  std::optional<Walk> walk(const Schedule& s, OptimizerMode steer, SimResult* timeline);
  [[nodiscard]] bool walk_better(const Walk& a, const Walk& b) const;
  [[nodiscard]] bool better_in_other_mode(const Score& a, const Score& b) const;
  /// Walks from `start` while the budget stays above `stop`, accepting moves that are better
  /// under `steer`, and keeps the best schedule met under the objective.
  void walk_from(Schedule start, long long stop, OptimizerMode steer);
  /// The walk's measure of what `timer` holds now, spending what it worked since `work` and the
  /// search's own `pending` work, at most the schedule's op count.
  Walk timed_walk(const IncrementalTimer& timer, OptimizerMode steer, long long& work, long long& pending);
  /// The memory device d holds before each of its ops, and after the last.
  [[nodiscard]] std::vector<Bytes> memory_profile(const Schedule& s, std::size_t device) const;
  /// Whether device d's ops at places low to high keep within its limit when it holds `before`
  /// before them. A move changes a device's memory only between the places it changed: before
  /// them and after them the device holds what it held.
  [[nodiscard]] bool fits_places(const Schedule& s, std::size_t device, std::size_t low, std::size_t high,
                                 Bytes before) const;

  const CostModel& costs_;
  std::vector<Bytes> limits_;
  long long budget_;
  SearchObjective objective_;
  SimWorkspace workspace_;
  Retiming retiming_ = Retiming::Incremental;
  long long trials_ = 0;
  std::optional<Schedule> best_;
  Score best_score_{0, 0, 0};
  /// The best candidate by the other mode's measure: a second start for the local search,
  /// whose walks from the two often end in different places.
  std::optional<Schedule> second_;
  Score second_score_{0, 0, 0};
};

}  // namespace pipeplan
