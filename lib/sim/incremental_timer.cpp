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
  node_.reserve(n);
  order_.resize(schedule.order.size());
  std::vector<const Op*> op_of;
  op_of.reserve(n);
  const std::size_t slots = static_cast<std::size_t>(schedule.stages) * microbatches;
  std::vector<int> forward(slots, -1), gradient(slots, -1), split_b(slots, -1);
  for (std::size_t d = 0; d < schedule.order.size(); ++d) {
    for (const Op& op : schedule.order[d]) {
      const auto id = static_cast<int>(node_.size());
      Node& node = node_.emplace_back();
      node.device = static_cast<std::uint32_t>(d);
      node.index = static_cast<std::uint32_t>(order_[d].size());
      node.duration = sim::duration(times, op);
      order_[d].push_back(id);
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
  std::vector<std::uint32_t> consumers(n, 0);
  for (std::size_t id = 0; id < n; ++id) {
    node_[id].input_begin = static_cast<std::uint32_t>(input_.size());
    for (const Dependency& dep : dependencies_of(*op_of[id], schedule.stages)) {
      const std::vector<int>& producers = dep.need == Need::Forward         ? forward
                                          : dep.need == Need::InputGradient ? gradient
                                                                            : split_b;
      const auto producer = static_cast<std::uint32_t>(producers[slot(dep.stage, dep.microbatch)]);
      const int device = static_cast<int>(node_[id].device);
      input_.push_back({producer, transfer.delay(schedule.placement[static_cast<std::size_t>(dep.stage)], device,
                                                 crossed_boundary(dep))});
      ++node_[id].inputs;
      ++consumers[producer];
    }
  }
  std::uint32_t next = 0;
  for (std::size_t id = 0; id < n; ++id) {
    node_[id].consumer_begin = next;
    next += consumers[id];
  }
  consumer_.resize(input_.size());
  for (std::size_t id = 0; id < n; ++id) {
    const Node& node = node_[id];
    for (std::size_t k = node.input_begin; k < node.input_begin + node.inputs; ++k) {
      Node& producer = node_[input_[k].op];
      consumer_[producer.consumer_begin + producer.consumers++] = static_cast<std::uint32_t>(id);
    }
  }

  // The first times, the simulator's own.
  SimOptions options;
  options.iterations = 1;
  SimWorkspace workspace;
  const SimResult r = simulate_trusted(schedule, costs, options, workspace);
  work_ = static_cast<long long>(n);
  seen_.assign(n, 0);
  finished_.assign(n, 0);
  if (r.deadlocked()) {
    deadlocked_ = true;
    return;
  }
  for (std::size_t d = 0; d < order_.size(); ++d) {
    for (std::size_t i = 0; i < order_[d].size(); ++i) {
      Node& node = node_[id(d, i)];
      node.start = r.devices[d].ops[i].start;
      node.end = r.devices[d].ops[i].end;
      sum_of_ends_ += node.end;
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
  for (std::size_t k = std::min(from, to); k <= std::max(from, to); ++k) {
    node_[id(device, k)].index = static_cast<std::uint32_t>(k);
  }
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
  const Node& node = node_[op];
  SimTime start = node.index > 0 ? node_[id(node.device, node.index - 1)].end : 0;
  for (std::size_t k = node.input_begin; k < node.input_begin + node.inputs; ++k) {
    start = std::max(start, node_[input_[k].op].end + input_[k].delay);
  }
  return start;
}

// Before the moves every dependency went from an op to one that starts strictly later (every op
// lasts at least 1 ns), and so does every link of the new device orders that keeps two ops in
// their old order. The only links that go back in time are those where a moved op now comes
// before one that started before it: the heads of those links started at L or later, their
// tails at U or earlier. A cycle has to enter its earliest op by such a link and leave its latest
// by one, so it lies among the ops that started between L and U: a depth-first search from the
// heads, through ops that started by U, finds it or proves there is none (or gives up, having
// visited a quarter of the ops).
IncrementalTimer::Cycle IncrementalTimer::find_cycle() {
  const long long limit = work_ + static_cast<long long>(node_.size()) / 4 + 16;
  heads_.clear();
  SimTime upper = 0;
  for (const Range& r : ranges_) {
    for (std::size_t k = r.low; k < r.high; ++k) {
      const std::size_t tail = id(r.device, k), head = id(r.device, k + 1);
      if (node_[tail].start > node_[head].start) {
        heads_.push_back(head);
        upper = std::max(upper, node_[tail].start);
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
      const Node& node = node_[x];
      std::size_t next = kNone;
      // Edge 0 is the next op on the device, then the consumers of x's outputs.
      while (next == kNone && edge <= node.consumers) {
        if (edge == 0) {
          if (node.index + 1 < order_[node.device].size()) next = id(node.device, node.index + 1);
        } else {
          next = consumer_[node.consumer_begin + edge - 1];
        }
        ++edge;
        if (next != kNone && node_[next].start > upper) next = kNone;
      }
      if (next == kNone) {
        finished_[x] = trial_;
        stack_.pop_back();
      } else if (seen_[next] != trial_) {
        seen_[next] = trial_;
        stack_.push_back({next, 0});
        if (++work_ > limit) {
          stack_.clear();
          return Cycle::Unknown;
        }
      } else if (finished_[next] != trial_) {
        stack_.clear();
        return Cycle::Found;  // back to an op still on the path
      }
    }
  }
  return Cycle::None;
}

void IncrementalTimer::push(std::size_t op) {
  Node& node = node_[op];
  if (node.queued == trial_) return;
  node.queued = trial_;
  if (node.keyed != trial_) {
    node.keyed = trial_;
    node.key = node.start;  // not changed yet in this trial: its start before the moves
  }
  ++work_;
  heap_.emplace_back(node.key, op);
  std::push_heap(heap_.begin(), heap_.end(), kLater);
}

// Takes the ops in the order of their starts before the moves, which every dependency follows
// except the links a move turned back (see find_cycle); an op timed before one of its inputs
// changed is timed again when the input changes, so the times end as the unique solution of the
// simulator's equations whatever the order, and the order only keeps that rare.
bool IncrementalTimer::propagate() {
  const long long limit = work_ + static_cast<long long>(node_.size()) / 4 + 16;
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), kLater);
    const std::size_t op = heap_.back().second;
    heap_.pop_back();
    Node& node = node_[op];
    node.queued = 0;
    if (++work_ > limit) {
      heap_.clear();
      return false;  // reaching this far, the change is cheaper timed in full
    }
    const SimTime start = start_now(op);
    if (start == node.start) continue;
    if (node.saved != trial_) {
      node.saved = trial_;
      before_.push_back({op, node.start, node.end});
    }
    const SimTime end = start + node.duration;
    sum_of_ends_ += end - node.end;
    node.start = start;
    node.end = end;
    if (node.index + 1 < order_[node.device].size()) push(id(node.device, node.index + 1));
    for (std::size_t k = node.consumer_begin; k < node.consumer_begin + node.consumers; ++k) push(consumer_[k]);
  }
  return true;
}

// The simulator's own way, over the ops as numbered here: each device runs its list while the
// next op's inputs are timed, and an op's end wakes the devices of its consumers. Linear in the
// ops; a device left stuck means a cycle.
bool IncrementalTimer::time_in_full() {
  work_ += static_cast<long long>(node_.size());
  const auto devices = order_.size();
  next_.assign(devices, 0);
  waiting_.assign(devices, true);
  ready_.clear();
  for (std::size_t d = devices; d-- > 0;) ready_.push_back(d);
  while (!ready_.empty()) {
    const std::size_t d = ready_.back();
    ready_.pop_back();
    waiting_[d] = false;
    for (; next_[d] < order_[d].size(); ++next_[d]) {
      const std::size_t op = id(d, next_[d]);
      Node& node = node_[op];
      bool inputs = true;
      for (std::size_t k = node.input_begin; k < node.input_begin + node.inputs && inputs; ++k) {
        inputs = finished_[input_[k].op] == trial_;
      }
      if (!inputs) break;  // the producer's end wakes this device again
      const SimTime start = start_now(op);
      if (start != node.start) {
        if (node.saved != trial_) {
          node.saved = trial_;
          before_.push_back({op, node.start, node.end});
        }
        sum_of_ends_ += start + node.duration - node.end;
        node.start = start;
        node.end = start + node.duration;
      }
      finished_[op] = trial_;
      for (std::size_t k = node.consumer_begin; k < node.consumer_begin + node.consumers; ++k) {
        const std::size_t e = node_[consumer_[k]].device;
        if (e != d && !waiting_[e]) {
          waiting_[e] = true;
          ready_.push_back(e);
        }
      }
    }
  }
  for (std::size_t d = 0; d < devices; ++d) {
    if (next_[d] < order_[d].size()) {
      restore();
      return false;
    }
  }
  return true;
}

void IncrementalTimer::next_trial() {
  if (++trial_ == 0) {
    for (Node& node : node_) node.queued = node.keyed = node.saved = 0;
    std::fill(seen_.begin(), seen_.end(), 0);
    std::fill(finished_.begin(), finished_.end(), 0);
    trial_ = 1;
  }
}

bool IncrementalTimer::retime() {
  next_trial();
  const Cycle cycle = find_cycle();
  if (cycle == Cycle::Found) return false;
  if (cycle == Cycle::Unknown) {
    next_trial();  // fresh marks for the full timing
    return time_in_full();
  }
  // The moved ops first, each keyed by the start of the op whose place it took, so that a
  // device's changed ops are taken in their new order; then the op after them.
  for (const Range& r : ranges_) {
    starts_.clear();
    for (std::size_t k = r.low; k <= r.high; ++k) starts_.push_back(node_[id(r.device, k)].start);
    std::sort(starts_.begin(), starts_.end());
    for (std::size_t k = r.low; k <= r.high; ++k) {
      Node& node = node_[id(r.device, k)];
      node.keyed = trial_;
      node.key = starts_[k - r.low];
      push(id(r.device, k));
    }
    if (r.high + 1 < order_[r.device].size()) push(id(r.device, r.high + 1));
  }
  if (propagate()) return true;
  restore();
  next_trial();  // fresh marks for the full timing
  return time_in_full();
}

void IncrementalTimer::keep() {
  ranges_.clear();
  moves_.clear();
  before_.clear();
}

void IncrementalTimer::restore() {
  for (const Before& b : before_) {
    Node& node = node_[b.op];
    sum_of_ends_ += b.end - node.end;
    node.start = b.start;
    node.end = b.end;
  }
  before_.clear();
}

void IncrementalTimer::drop() {
  restore();
  for (auto m = moves_.rbegin(); m != moves_.rend(); ++m) rotate(m->device, m->to, m->from);
  keep();
}

}  // namespace pipeplan
