// ScheduleSearch::improve: the local search after the candidates. It walks from the best
// candidate by moves aimed at the idle gaps of the devices that set the step, and keeps the best
// schedule it meets under the objective.
//
// Why aimed at gaps: a move can only shorten a device's span by filling idle time inside it, so
// every move starts from a gap before some op X on a device: a later W whose B already ran moves
// into the gap; X trades places with the op after it, which may be ready sooner; the op that
// produces X's input moves one place earlier on its own device (the B/F order there); when X is
// a B, the device's warm-up gets one forward fewer before it, or one more; and before a device's
// first B, the same on several devices together (warm_up_shifts).
//
// Why a walk score: the longest span is often shared by several devices (ZB-H1's are all
// equal), so no single move shortens it. The walk accepts a move when the step gets no longer
// and the sum of every device's span (post-validation) or end (sync) shrinks, so it can shorten
// the devices one by one until the longest span itself falls.
#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "schedules/zb_search.hpp"
#include "sim/incremental_timer.hpp"

namespace pipeplan {

namespace {

// Moves one op of a device from index `from` to index `to`; the ops between shift by one.
struct Move {
  std::size_t device, from, to;

  void apply(Schedule& s) const {
    auto& ops = s.order[device];
    const auto at = [&](std::size_t k) { return ops.begin() + static_cast<std::ptrdiff_t>(k); };
    if (from < to) {
      std::rotate(at(from), at(from + 1), at(to + 1));
    } else {
      std::rotate(at(to), at(from), at(from + 1));
    }
  }
  [[nodiscard]] Move undo() const { return {device, to, from}; }
};

// Whether `later` needs `earlier` on the same device: W after its B, B or BW after its F.
bool needs(const Op& later, const Op& earlier) {
  if (later.stage != earlier.stage || later.microbatch != earlier.microbatch) return false;
  return (later.kind == OpKind::W && earlier.kind == OpKind::B) ||
         ((later.kind == OpKind::B || later.kind == OpKind::BW) && earlier.kind == OpKind::F);
}

// Whether the move keeps every op after the ops of its own device that it needs.
bool keeps_own_order(const Schedule& s, const Move& m) {
  const auto& ops = s.order[m.device];
  const Op& moved = ops[m.from];
  if (m.to < m.from) {
    for (std::size_t k = m.to; k < m.from; ++k) {
      if (needs(moved, ops[k])) return false;
    }
  } else {
    for (std::size_t k = m.from + 1; k <= m.to; ++k) {
      if (needs(ops[k], moved)) return false;
    }
  }
  return true;
}

// Where each F, B and W sits in its device's list, kept as moves are applied, so that the moves
// for a gap find the ops they aim at without a scan of the device.
class Places {
 public:
  static constexpr std::size_t kNowhere = static_cast<std::size_t>(-1);

  explicit Places(const Schedule& s)
      : stages_(static_cast<std::size_t>(s.stages)),
        microbatches_(static_cast<std::size_t>(s.microbatches)),
        place_(3 * stages_ * microbatches_, kNowhere) {
    for (const auto& ops : s.order) {
      for (std::size_t k = 0; k < ops.size(); ++k) set(ops[k], k);
    }
  }

  /// The index of `op` (an F, B or W) in its device's list; kNowhere when the schedule has none.
  [[nodiscard]] std::size_t of(const Op& op) const { return place_[slot(op)]; }

  /// The places a move applied to `s` changed.
  void moved(const Schedule& s, const Move& m) {
    for (std::size_t k = std::min(m.from, m.to); k <= std::max(m.from, m.to); ++k) set(s.order[m.device][k], k);
  }

 private:
  [[nodiscard]] std::size_t slot(const Op& op) const {
    return (static_cast<std::size_t>(op.kind) * stages_ + static_cast<std::size_t>(op.stage)) * microbatches_ +
           static_cast<std::size_t>(op.microbatch);
  }
  void set(const Op& op, std::size_t k) {
    if (op.kind == OpKind::F || op.kind == OpKind::B || op.kind == OpKind::W) place_[slot(op)] = k;
  }

  std::size_t stages_, microbatches_;
  std::vector<std::size_t> place_;
};

// What a device contributes to the step: its span under post-validation, its end under sync.
SimTime weight(const IterationTimes& t, OptimizerMode mode) {
  return mode == OptimizerMode::PostValidation ? t.span() : t.last_end;
}

// The times of the first iteration's ops, device by device in their order: from a simulated
// run, or from the incremental timer.
struct Times {
  const SimResult* run = nullptr;
  const IncrementalTimer* timer = nullptr;

  [[nodiscard]] std::size_t devices() const { return timer != nullptr ? timer->devices() : run->devices.size(); }
  [[nodiscard]] std::size_t ops(std::size_t d) const {
    if (timer != nullptr) return timer->ops(d);
    // Later iterations repeat the list after it.
    const auto& ops = run->devices[d].ops;
    std::size_t n = 0;
    while (n < ops.size() && ops[n].iteration == 0) ++n;
    return n;
  }
  [[nodiscard]] SimTime start(std::size_t d, std::size_t i) const {
    return timer != nullptr ? timer->start(d, i) : run->devices[d].ops[i].start;
  }
  [[nodiscard]] SimTime end(std::size_t d, std::size_t i) const {
    return timer != nullptr ? timer->end(d, i) : run->devices[d].ops[i].end;
  }
  /// What device d contributes to the step: its span under post-validation, its end under sync
  /// (a device with no ops: 0, as the simulator times it).
  [[nodiscard]] SimTime weight(std::size_t d, OptimizerMode mode) const {
    if (timer == nullptr) return pipeplan::weight(run->devices[d].iterations.front(), mode);
    const std::size_t n = timer->ops(d);
    const SimTime last_end = n == 0 ? 0 : timer->end(d, n - 1);
    return mode == OptimizerMode::PostValidation && n > 0 ? last_end - timer->start(d, 0) : last_end;
  }
};

// The devices, those that weigh most in the step first.
std::vector<std::size_t> devices_by_weight(const Times& times, OptimizerMode mode) {
  std::vector<std::size_t> devices(times.devices());
  std::iota(devices.begin(), devices.end(), std::size_t{0});
  std::vector<SimTime> weights(devices.size());
  for (std::size_t d : devices) weights[d] = times.weight(d, mode);
  std::stable_sort(devices.begin(), devices.end(),
                   [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
  return devices;
}

// Every idle gap inside device d's run, as the index of the op after it, the longest first. Made
// device by device as the walk reaches it: a move is often kept on the first devices, and then
// the gaps are found again.
void device_gaps(const Times& times, std::size_t d, std::vector<std::size_t>& out) {
  std::vector<std::pair<SimTime, std::size_t>> found;
  const std::size_t n = times.ops(d);
  for (std::size_t i = 1; i < n; ++i) {
    const SimTime idle = times.start(d, i) - times.end(d, i - 1);
    if (idle > 0) found.emplace_back(idle, i);
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  out.clear();
  for (const auto& gap : found) out.push_back(gap.second);
}

// A trial: one move, or several on different devices applied together (a warm-up shift).
using Trial = std::vector<Move>;

// The index of device d's first B (or BW), or its op count when it has none.
std::size_t first_backward(const std::vector<Op>& ops) {
  return static_cast<std::size_t>(
      std::find_if(ops.begin(), ops.end(), [](const Op& op) { return op.kind == OpKind::B || op.kind == OpKind::BW; }) -
      ops.begin());
}

// The move that gives device e one forward more before its first B (deeper: the first F after
// it moves before it) or one fewer (the last F before it moves after it); nullopt when there is
// no such F.
std::optional<Move> warm_up_shift(const Schedule& s, std::size_t e, bool deeper) {
  const auto& ops = s.order[e];
  const std::size_t b = first_backward(ops);
  if (b == 0 || b >= ops.size()) return std::nullopt;
  if (!deeper) return ops[b - 1].kind == OpKind::F ? std::optional<Move>(Move{e, b - 1, b}) : std::nullopt;
  for (std::size_t j = b + 1; j < ops.size(); ++j) {
    if (ops[j].kind == OpKind::F) return Move{e, j, b};
  }
  return std::nullopt;
}

// Warm-up shifts on several devices together, for the gap before device d's first B: one
// forward more (or fewer) on every device from d to the last, or from the first to d. A single
// device's shift often only moves its gap to its neighbour, and getting from one staircase of
// warm-ups to another needs many devices to change at once (issue 26). Shorter runs of devices
// (2, 4, 8, ...) were tried too: with every trial timing the whole schedule they spend the
// budget the single moves would have used, and the walk ended worse on average.
void warm_up_shifts(const Schedule& s, std::size_t d, std::vector<Trial>& trials) {
  const std::size_t devices = s.order.size();
  for (const bool deeper : {true, false}) {
    for (const bool after : {true, false}) {
      Trial shift;
      for (std::size_t e = after ? d : 0; e < (after ? devices : d + 1); ++e) {
        if (std::optional<Move> m = warm_up_shift(s, e, deeper)) shift.push_back(*m);
      }
      if (shift.size() > 1) trials.push_back(std::move(shift));
    }
  }
}

// The places a trial's moves changed, one range per device, as (device, low, high) in `out`.
void changed_places(const Trial& t, std::vector<Move>& out) {
  out.clear();
  for (const Move& m : t) {
    const std::size_t low = std::min(m.from, m.to), high = std::max(m.from, m.to);
    const auto same = std::find_if(out.begin(), out.end(), [&](const Move& r) { return r.device == m.device; });
    if (same == out.end()) {
      out.push_back({m.device, low, high});
    } else {
      same->from = std::min(same->from, low);
      same->to = std::max(same->to, high);
    }
  }
}

// The moves aimed at the gap before op i of device d (see the top of this file).
void moves_for_gap(const Schedule& s, const Places& places, std::size_t d, std::size_t i, std::vector<Trial>& trials) {
  trials.clear();
  std::vector<Move> moves;
  const auto& ops = s.order[d];
  int fills = 0;
  for (std::size_t j = i + 1; j < ops.size() && fills < 2; ++j) {
    if (ops[j].kind == OpKind::W && places.of(Op{OpKind::B, ops[j].stage, ops[j].microbatch}) < i) {
      moves.push_back({d, j, i});
      ++fills;
    }
  }
  // An earlier W moves into the gap: what it delayed runs sooner, and the gap is filled.
  int held = 0;
  for (std::size_t j = i; j-- > 0 && held < 2;) {
    if (ops[j].kind == OpKind::W) {
      if (j + 1 < i) moves.push_back({d, j, i - 1});
      ++held;
    }
  }
  if (i + 1 < ops.size()) moves.push_back({d, i + 1, i});
  const Op& x = ops[i];
  const bool forward_input = x.kind == OpKind::F && x.stage > 0;
  const bool backward_input = (x.kind == OpKind::B || x.kind == OpKind::BW) && x.stage + 1 < s.stages;
  if (forward_input || backward_input) {
    const Op producer =
        forward_input ? Op{OpKind::F, x.stage - 1, x.microbatch} : Op{OpKind::B, x.stage + 1, x.microbatch};
    const auto p = static_cast<std::size_t>(s.placement[static_cast<std::size_t>(producer.stage)]);
    const std::size_t k = places.of(producer);
    if (k > 0 && k != Places::kNowhere) moves.push_back({p, k, k - 1});
  }
  if (x.kind == OpKind::B) {
    if (ops[i - 1].kind == OpKind::F) moves.push_back({d, i - 1, i});
    for (std::size_t j = i + 1; j < ops.size(); ++j) {
      if (ops[j].kind == OpKind::F) {
        moves.push_back({d, j, i});
        break;
      }
    }
  }
  for (const Move& m : moves) trials.push_back({m});
  if (x.kind == OpKind::B && i == first_backward(ops)) warm_up_shifts(s, d, trials);
}

}  // namespace

std::optional<Schedule> ScheduleSearch::improve() {
  if (!best_) return std::nullopt;
  // Half the budget from the best candidate, the rest from the best by the other mode's measure.
  std::optional<Schedule> second = std::move(second_);
  // Each walk is steered by its start's measure; the best under the objective is kept from both.
  const OptimizerMode other =
      objective_.mode == OptimizerMode::Sync ? OptimizerMode::PostValidation : OptimizerMode::Sync;
  walk_from(*best_, budget_ / 2, objective_.mode);
  if (second) walk_from(std::move(*second), 0, other);
  return std::move(best_);
}

void ScheduleSearch::walk_from(Schedule current, long long stop, OptimizerMode steer) {
  // Each trial re-timed by the incremental timer where it applies, else simulated in full; the
  // two give the same times (tests/incremental_timer_test.cpp), so the walk is the same, and
  // the first spends less of the budget on each trial.
  std::optional<IncrementalTimer> timer;
  long long work = 0;     // the timer's work charged so far
  long long pending = 0;  // the search's own work since the last trial, not charged yet
  SimResult timeline;
  std::optional<Walk> here;
  if (retiming_ == Retiming::Incremental && objective_.iterations == 1 && IncrementalTimer::applies(current, costs_)) {
    timer.emplace(current, costs_);
    const Walk w = timed_walk(*timer, steer, work, pending);  // spends the first timing either way
    if (!timer->deadlocked()) here = w;
  } else {
    here = walk(current, steer, &timeline);
  }
  if (!here) return;
  if (better(here->score, best_score_)) {
    best_ = current;
    best_score_ = here->score;
  }
  std::vector<Trial> trials;
  std::vector<std::size_t> gaps;
  SimResult trial;
  Places places(current);
  std::vector<std::vector<Bytes>> memory;  // each device's memory before each of its ops
  for (std::size_t d = 0; d < current.order.size(); ++d) memory.push_back(memory_profile(current, d));
  std::vector<Move> ranges;  // the places a trial changed on each device, as (device, low, high)
  bool moved = true;
  while (moved && budget_ > stop) {
    moved = false;
    const Times times{timer ? nullptr : &timeline, timer ? &*timer : nullptr};
    for (const std::size_t d : devices_by_weight(times, steer)) {
      device_gaps(times, d, gaps);
      // Re-timed incrementally, a trial costs about as much as finding a device's gaps or its
      // memory again, so those count too (charged with the next trial), and the budget bounds
      // the time as before.
      if (timer) pending += static_cast<long long>(current.order[d].size());
      for (const std::size_t i : gaps) {
        moves_for_gap(current, places, d, i, trials);
        for (const Trial& t : trials) {
          // Each part on its own device, in turn; undone in reverse when the trial loses.
          std::size_t applied = 0;
          for (; applied < t.size() && keeps_own_order(current, t[applied]); ++applied) {
            t[applied].apply(current);
            places.moved(current, t[applied]);
            if (timer) timer->move(t[applied].device, t[applied].from, t[applied].to);
          }
          const auto undo = [&] {
            while (applied > 0) {
              const Move back = t[--applied].undo();
              back.apply(current);
              places.moved(current, back);
            }
            if (timer) timer->drop();
          };
          if (applied < t.size()) {
            undo();
            continue;
          }
          changed_places(t, ranges);
          bool fits = true;
          for (const Move& r : ranges) {
            fits = fits && fits_places(current, r.device, r.from, r.to, memory[r.device][r.from]);
            if (timer) pending += 2 * static_cast<long long>(r.to - r.from + 1);  // its order, then its memory
          }
          std::optional<Walk> there;
          if (fits && timer) {
            const bool timed = timer->retime();
            const Walk w = timed_walk(*timer, steer, work, pending);  // spends the trial either way
            if (timed) there = w;
          } else if (fits) {
            there = walk(current, steer, &trial);
          }
          if (there && walk_better(*there, *here)) {
            here = there;
            for (const Move& r : ranges) {
              memory[r.device] = memory_profile(current, r.device);
              if (timer) pending += static_cast<long long>(memory[r.device].size());
            }
            if (timer) {
              timer->keep();
            } else {
              std::swap(timeline, trial);
            }
            if (better(here->score, best_score_)) {
              best_ = current;
              best_score_ = here->score;
            }
            moved = true;
            break;
          }
          undo();
          if (budget_ <= stop) break;
        }
        if (moved || budget_ <= stop) break;
      }
      if (moved || budget_ <= stop) break;
    }
  }
}

ScheduleSearch::Walk ScheduleSearch::timed_walk(const IncrementalTimer& timer, OptimizerMode steer, long long& work,
                                                long long& pending) {
  // Never more than simulating the whole schedule would cost: then the walk makes at least the
  // trials it made when every trial was simulated, the same ones first.
  long long ops = 0;
  for (std::size_t d = 0; d < timer.devices(); ++d) ops += static_cast<long long>(timer.ops(d));
  // The walk's measure reads each device's first and last op.
  budget_ -= std::min(ops, timer.work() - work + pending + 2 * static_cast<long long>(timer.devices()));
  work = timer.work();
  pending = 0;
  ++trials_;
  const Times times{nullptr, &timer};
  SimTime makespan = 0, span = 0;
  Walk w{{0, 0, 0}, 0, 0, timer.sum_of_ends()};
  for (std::size_t d = 0; d < timer.devices(); ++d) {
    makespan = std::max(makespan, times.weight(d, OptimizerMode::Sync));
    span = std::max(span, times.weight(d, OptimizerMode::PostValidation));
    w.total += times.weight(d, steer);
  }
  w.score = *score_of(makespan, span);  // one iteration
  w.step = steer == OptimizerMode::Sync ? makespan : span;
  return w;
}

std::optional<ScheduleSearch::Walk> ScheduleSearch::walk(const Schedule& s, OptimizerMode steer, SimResult* timeline) {
  SimOptions options;
  options.record_timeline = timeline != nullptr;
  options.iterations = objective_.iterations;
  options.optimizer_mode = objective_.mode;
  budget_ -= static_cast<long long>(s.op_count()) * objective_.iterations;
  ++trials_;
  SimResult r = simulate_trusted(s, costs_, options, workspace_);
  if (r.deadlocked()) return std::nullopt;
  Walk w{score_of_result(r), 0, 0, 0};
  // The walk's own step: the objective's with several iterations, else its steering mode's.
  w.step = objective_.iterations != 1 ? w.score.step : steer == OptimizerMode::Sync ? w.score.makespan : w.score.span;
  for (const DeviceTimeline& d : r.devices) {
    w.total += weight(d.iterations.front(), steer);
    for (const OpTiming& op : d.ops) w.ends += op.end;
  }
  if (timeline != nullptr) *timeline = std::move(r);
  return w;
}

bool ScheduleSearch::walk_better(const Walk& a, const Walk& b) const {
  if (a.step != b.step) return a.step < b.step;
  if (a.total != b.total) return a.total < b.total;
  return a.ends < b.ends;
}

}  // namespace pipeplan
