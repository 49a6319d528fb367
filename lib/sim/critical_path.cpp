#include "sim/critical_path.hpp"

#include <algorithm>
#include <cstddef>

#include "model/dependencies.hpp"
#include "model/large_allocator.hpp"
#include "sim/transfer_rule.hpp"

namespace pipeplan {

namespace {

// The first iteration's op that produced each output, by need, stage and micro-batch: one
// pointer per output, so finding an input's producer is one load.
class FirstIterationProducers {
 public:
  FirstIterationProducers(const Schedule& s, const SimResult& r)
      : stages_(static_cast<std::size_t>(s.stages)),
        microbatches_(static_cast<std::size_t>(s.microbatches)),
        table_(kNeeds * stages_ * microbatches_, nullptr) {
    for (const DeviceTimeline& d : r.devices) {
      for (const OpTiming& t : d.ops) {
        if (t.iteration != 0) break;  // a device's ops are in start order, iterations in turn
        if (t.op.kind == OpKind::F || t.op.kind == OpKind::FB) at(Need::Forward, t.op.stage, t.op.microbatch) = &t;
        if (t.op.kind == OpKind::FB) {
          at(Need::InputGradient, t.op.overlap_stage, t.op.overlap_microbatch) = &t;
        } else if (gives_input_gradient(t.op.kind)) {
          at(Need::InputGradient, t.op.stage, t.op.microbatch) = &t;
        }
        if (t.op.kind == OpKind::B) at(Need::SplitB, t.op.stage, t.op.microbatch) = &t;
      }
    }
  }

  [[nodiscard]] const OpTiming* of(const Dependency& dep) const {
    return table_[index(dep.need, dep.stage, dep.microbatch)];
  }

 private:
  static constexpr std::size_t kNeeds = 3;  // Need's values

  [[nodiscard]] std::size_t index(Need need, int stage, int microbatch) const {
    return (static_cast<std::size_t>(need) * stages_ + static_cast<std::size_t>(stage)) * microbatches_ +
           static_cast<std::size_t>(microbatch);
  }
  const OpTiming*& at(Need need, int stage, int microbatch) { return table_[index(need, stage, microbatch)]; }

  std::size_t stages_, microbatches_;
  LargeVector<const OpTiming*> table_;
};

// The first iteration's op that ends last; on a tie, the lowest device's.
const OpTiming* last_op(const SimResult& r) {
  const OpTiming* last = nullptr;
  for (const DeviceTimeline& d : r.devices) {
    for (const OpTiming& t : d.ops) {
      if (t.iteration != 0) break;
      if (last == nullptr || t.end > last->end) last = &t;
    }
  }
  return last;
}

// The op before `t` on its device in the first iteration, or nullptr.
const OpTiming* previous_on_device(const SimResult& r, const OpTiming& t) {
  const auto& ops = r.devices[static_cast<std::size_t>(t.device)].ops;
  const auto index = static_cast<std::size_t>(&t - ops.data());
  return index == 0 ? nullptr : &ops[index - 1];
}

// The transfer rule the run timed its inputs by, with each boundary's time as it recorded it.
// A measured run records none: its inputs from other devices then count from their producers'
// ends.
TransferRule recorded_rule(const Schedule& s, const SimResult& r) {
  if (!r.boundary_transfers.empty()) return TransferRule(r.boundary_transfers);
  return TransferRule(std::vector<SimTime>(static_cast<std::size_t>(std::max(0, s.stages - 1)), 0));
}

}  // namespace

std::vector<CriticalStep> critical_path(const Schedule& schedule, const SimResult& result) {
  std::vector<CriticalStep> path;
  const OpTiming* current = last_op(result);
  if (current == nullptr) return path;
  const FirstIterationProducers producers(schedule, result);
  const TransferRule rule = recorded_rule(schedule, result);
  while (current != nullptr) {
    path.push_back({current, false});
    const OpTiming* previous = previous_on_device(result, *current);
    if (previous != nullptr && previous->end == current->start) {
      current = previous;
      continue;
    }
    const OpTiming* remote = nullptr;  // the input from another device that arrived last
    Dependency remote_input{};
    SimTime remote_arrival = 0;
    const OpTiming* local = previous;  // else the latest of what ran on this device
    for (const Dependency& dep : dependencies_of(current->op, schedule.stages)) {
      const OpTiming* from = producers.of(dep);
      if (from == nullptr || from->end > current->start) continue;
      if (from->device == current->device) {
        if (local == nullptr || from->end > local->end) local = from;
        continue;
      }
      // An FB may wait on two devices, across two boundaries whose transfers may differ.
      const SimTime arrival = rule.arrival(from->end, from->device, current->device, crossed_boundary(dep));
      if (remote == nullptr || arrival > remote_arrival) {
        remote = from;
        remote_input = dep;
        remote_arrival = arrival;
      }
    }
    path.back().after_transfer = remote != nullptr;
    if (remote != nullptr) path.back().input = remote_input;
    current = remote != nullptr ? remote : local;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace pipeplan
