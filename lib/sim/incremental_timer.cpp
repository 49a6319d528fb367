#include "sim/incremental_timer.hpp"

#include <algorithm>
#include <functional>

#include "model/dependencies.hpp"
#include "model/error.hpp"
#include "sim/op_costs.hpp"
#include "sim/simulator.hpp"
#include "sim/transfer_rule.hpp"

namespace pipeplan {

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// The earliest key first.
constexpr auto kLater = std::greater<std::pair<SimTime, std::size_t>>();

}  // namespace

bool IncrementalTimer::applies(const Schedule& schedule, const CostModel& costs) {
  const std::vector<sim::StageTimes> times = sim::stage_times(costs);
  for (const std::vector<Op>& ops : schedule.order) {
    for (const Op& op : ops) {
      if (sim::duration(times, op) <= 0) return false;
    }
  }
  return true;
}

IncrementalTimer::IncrementalTimer(const Schedule& schedule, const CostModel& costs) {
  const std::vector<sim::StageTimes> times = sim::stage_times(costs);
  const TransferRule transfer(costs);
  const std::size_t n = schedule.op_count();
  const auto microbatches = static_cast<std::size_t>(schedule.microbatches);
  const auto slot = [&](int stage, int microbatch) {
    return static_cast<std::size_t>(stage) * microbatches + static_cast<std::size_t>(microbatch);
  };

  // Every op numbered in the schedule's order, device by device; who gives each output.
  device_.reserve(n);
  index_.reserve(n);
  duration_.reserve(n);
  order_.resize(schedule.order.size());
  std::vector<const Op*> op_of;
  op_of.reserve(n);
  const std::size_t slots = static_cast<std::size_t>(schedule.stages) * microbatches;
  std::vector<int> forward(slots, -1), gradient(slots, -1), split_b(slots, -1);
  for (std::size_t d = 0; d < schedule.order.size(); ++d) {
    for (const Op& op : schedule.order[d]) {
      const auto id = static_cast<int>(device_.size());
      device_.push_back(static_cast<int>(d));
      index_.push_back(order_[d].size());
      order_[d].push_back(id);
      duration_.push_back(sim::duration(times, op));
      op_of.push_back(&op);
      const std::size_t at = slot(op.stage, op.microbatch);
      switch (op.kind) {
        case OpKind::F:
          forward[at] = id;
          break;
        case OpKind::B:
          gradient[at] = id;
          split_b[at] = id;
          break;
        case OpKind::BW:
          gradient[at] = id;
          break;
        case OpKind::W:
          break;
        case OpKind::FB:
          forward[at] = id;
          gradient[slot(op.overlap_stage, op.overlap_microbatch)] = id;
          break;
      }
    }
  }

  // What each op needs, with what the transfer adds; then who needs each op.
  input_begin_.reserve(n + 1);
  for (std::size_t id = 0; id < n; ++id) {
    input_begin_.push_back(input_.size());
    for (const Dependency& dep : dependencies_of(*op_of[id], schedule.stages)) {
      const std::vector<int>& producers = dep.need == Need::Forward         ? forward
                                          : dep.need == Need::InputGradient ? gradient
                                                                            : split_b;
      input_.push_back(producers[slot(dep.stage, dep.microbatch)]);
      input_delay_.push_back(
          transfer.delay(schedule.placement[static_cast<std::size_t>(dep.stage)], device_[id], crossed_boundary(dep)));
    }
  }
  input_begin_.push_back(input_.size());
  consumer_begin_.assign(n + 1, 0);
  for (int producer : input_) ++consumer_begin_[static_cast<std::size_t>(producer) + 1];
  for (std::size_t id = 0; id < n; ++id) consumer_begin_[id + 1] += consumer_begin_[id];
  consumer_.resize(input_.size());
  std::vector<std::size_t> filled(consumer_begin_.begin(), consumer_begin_.end() - 1);
  for (std::size_t id = 0; id < n; ++id) {
    for (std::size_t k = input_begin_[id]; k < input_begin_[id + 1]; ++k) {
      consumer_[filled[static_cast<std::size_t>(input_[k])]++] = static_cast<int>(id);
    }
  }

  // The first times, the simulator's own.
  SimOptions options;
  options.iterations = 1;
  SimWorkspace workspace;
  const SimResult r = simulate_trusted(schedule, costs, options, workspace);
  work_ = static_cast<long long>(n);
  start_.assign(n, 0);
  end_.assign(n, 0);
  for (auto* marks : {&queued_, &keyed_, &saved_, &seen_, &finished_}) marks->assign(n, 0);
  key_.assign(n, 0);
  if (r.deadlocked()) {
    deadlocked_ = true;
    return;
  }
  for (std::size_t d = 0; d < order_.size(); ++d) {
    for (std::size_t i = 0; i < order_[d].size(); ++i) {
      const std::size_t op = id(d, i);
      start_[op] = r.devices[d].ops[i].start;
      end_[op] = r.devices[d].ops[i].end;
      sum_of_ends_ += end_[op];
    }
  }
}

void IncrementalTimer::rotate(std::size_t device, std::size_t from, std::size_t to) {
  std::vector<int>& ops = order_[device];
  const auto at = [&](std::size_t k) { return ops.begin() + static_cast<std::ptrdiff_t>(k); };
  if (from < to) {
    std::rotate(at(from), at(from + 1), at(to + 1));
  } else {
    std::rotate(at(to), at(from), at(from + 1));
  }
  for (std::size_t k = std::min(from, to); k <= std::max(from, to); ++k) index_[id(device, k)] = k;
}

void IncrementalTimer::move(std::size_t device, std::size_t from, std::size_t to) {
  rotate(device, from, to);
  moves_.push_back({device, from, to});
  const std::size_t low = std::min(from, to), high = std::max(from, to);
  for (Range& r : ranges_) {
    if (r.device == device) {
      r.low = std::min(r.low, low);
      r.high = std::max(r.high, high);
      return;
    }
  }
  ranges_.push_back({device, low, high});
}

SimTime IncrementalTimer::start_now(std::size_t op) const {
  const auto d = static_cast<std::size_t>(device_[op]);
  const std::size_t i = index_[op];
  SimTime start = i > 0 ? end_[id(d, i - 1)] : 0;
  for (std::size_t k = input_begin_[op]; k < input_begin_[op + 1]; ++k) {
    start = std::max(start, end_[static_cast<std::size_t>(input_[k])] + input_delay_[k]);
  }
  return start;
}

// Before the moves every dependency went from an op to one that starts strictly later (every op
// lasts at least 1 ns), and so does every link of the new device orders that keeps two ops in
// their old order. The only links that go back in time are those where a moved op now comes
// before one that started before it: the heads of those links started at L or later, their
// tails at U or earlier. A cycle has to enter its earliest op by such a link and leave its latest
// by one, so it lies among the ops that started between L and U: a depth-first search from the
// heads, through ops that started by U, finds it or proves there is none.
bool IncrementalTimer::makes_cycle() {
  heads_.clear();
  SimTime upper = 0;
  for (const Range& r : ranges_) {
    for (std::size_t k = r.low; k < r.high; ++k) {
      const std::size_t tail = id(r.device, k), head = id(r.device, k + 1);
      if (start_[tail] > start_[head]) {
        heads_.push_back(head);
        upper = std::max(upper, start_[tail]);
      }
    }
  }
  for (std::size_t head : heads_) {
    if (seen_[head] == trial_) continue;
    seen_[head] = trial_;
    ++work_;
    stack_.push_back({head, 0});
    while (!stack_.empty()) {
      const std::size_t x = stack_.back().first;
      std::size_t& edge = stack_.back().second;
      const auto d = static_cast<std::size_t>(device_[x]);
      const std::size_t consumers = consumer_begin_[x + 1] - consumer_begin_[x];
      std::size_t next = kNone;
      // Edge 0 is the next op on the device, then the consumers of x's outputs.
      while (next == kNone && edge <= consumers) {
        if (edge == 0) {
          if (index_[x] + 1 < order_[d].size()) next = id(d, index_[x] + 1);
        } else {
          next = static_cast<std::size_t>(consumer_[consumer_begin_[x] + edge - 1]);
        }
        ++edge;
        if (next != kNone && start_[next] > upper) next = kNone;
      }
      if (next == kNone) {
        finished_[x] = trial_;
        stack_.pop_back();
      } else if (seen_[next] != trial_) {
        seen_[next] = trial_;
        ++work_;
        stack_.push_back({next, 0});
      } else if (finished_[next] != trial_) {
        stack_.clear();
        return true;  // back to an op still on the path: a cycle
      }
    }
  }
  return false;
}

void IncrementalTimer::push(std::size_t op) {
  if (queued_[op] == trial_) return;
  queued_[op] = trial_;
  if (keyed_[op] != trial_) {
    keyed_[op] = trial_;
    key_[op] = start_[op];  // not changed yet in this trial: its start before the moves
  }
  heap_.emplace_back(key_[op], op);
  std::push_heap(heap_.begin(), heap_.end(), kLater);
}

// Takes the ops in the order of their starts before the moves, which every dependency follows
// except the links a move turned back (see makes_cycle); an op timed before one of its inputs
// changed is timed again when the input changes, so the times end as the unique solution of the
// simulator's equations whatever the order, and the order only keeps that rare.
void IncrementalTimer::propagate() {
  const long long limit = work_ + 64 * static_cast<long long>(start_.size()) + 64;
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), kLater);
    const std::size_t op = heap_.back().second;
    heap_.pop_back();
    queued_[op] = 0;
    if (++work_ > limit) throw Error("internal error: the incremental timer did not settle");
    const SimTime start = start_now(op);
    if (start == start_[op]) continue;
    if (saved_[op] != trial_) {
      saved_[op] = trial_;
      before_.push_back({op, start_[op], end_[op]});
    }
    const SimTime end = start + duration_[op];
    sum_of_ends_ += end - end_[op];
    start_[op] = start;
    end_[op] = end;
    const auto d = static_cast<std::size_t>(device_[op]);
    if (index_[op] + 1 < order_[d].size()) push(id(d, index_[op] + 1));
    for (std::size_t k = consumer_begin_[op]; k < consumer_begin_[op + 1]; ++k) {
      push(static_cast<std::size_t>(consumer_[k]));
    }
  }
}

bool IncrementalTimer::retime() {
  if (++trial_ == 0) {
    for (auto* marks : {&queued_, &keyed_, &saved_, &seen_, &finished_}) std::fill(marks->begin(), marks->end(), 0);
    trial_ = 1;
  }
  if (makes_cycle()) return false;
  // The moved ops first, each keyed by the start of the op whose place it took, so that a
  // device's changed ops are taken in their new order; then the op after them.
  for (const Range& r : ranges_) {
    starts_.clear();
    for (std::size_t k = r.low; k <= r.high; ++k) starts_.push_back(start_[id(r.device, k)]);
    std::sort(starts_.begin(), starts_.end());
    for (std::size_t k = r.low; k <= r.high; ++k) {
      const std::size_t op = id(r.device, k);
      keyed_[op] = trial_;
      key_[op] = starts_[k - r.low];
      push(op);
    }
    if (r.high + 1 < order_[r.device].size()) push(id(r.device, r.high + 1));
  }
  propagate();
  return true;
}

void IncrementalTimer::keep() {
  ranges_.clear();
  moves_.clear();
  before_.clear();
}

void IncrementalTimer::drop() {
  for (const Before& b : before_) {
    sum_of_ends_ += b.end - end_[b.op];
    start_[b.op] = b.start;
    end_[b.op] = b.end;
  }
  for (auto m = moves_.rbegin(); m != moves_.rend(); ++m) rotate(m->device, m->to, m->from);
  keep();
}

}  // namespace pipeplan
