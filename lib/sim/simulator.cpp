#include "sim/simulator.hpp"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <string>
#include <tuple>

#include "model/dependencies.hpp"
#include "model/error.hpp"
#include "model/structure.hpp"
#include "model/wait_cycle.hpp"
#include "sim/iteration_barrier.hpp"
#include "sim/lower_bound.hpp"
#include "sim/op_costs.hpp"
#include "sim/run_limits.hpp"
#include "sim/timeline_recorder.hpp"
#include "sim/transfer_rule.hpp"

namespace pipeplan {

namespace {

struct DeviceState {
  std::size_t next = 0;  // index of the next op in this iteration
  int iteration = 0;
  SimTime free_at = 0;  // when its last op or optimizer step ends
  bool queued = false;
};

// In this model nothing contends: an op starts at the later of its device's previous op and the
// arrival of its inputs, so every time is a function of the times before it. The simulation
// therefore follows the dependencies instead of a global event queue: each device advances
// through its list while its next op's inputs are known, and an op's end wakes the device that
// consumes it. Any processing order gives the same times, so the result is deterministic; it
// is exactly the discrete-event run of docs/model.md, "The simulator", computed in linear time.
class Simulation {
 public:
  Simulation(const Schedule& schedule, const CostModel& costs, const SimOptions& options, SimWorkspace& workspace)
      : s_(schedule),
        options_(options),
        transfer_(costs),
        per_iteration_(static_cast<std::size_t>(schedule.stages) * static_cast<std::size_t>(schedule.microbatches)),
        ring_(std::min(options.iterations, kRing)),
        forward_end_(workspace.forward_end),
        gradient_end_(workspace.gradient_end),
        split_b_end_(workspace.split_b_end),
        state_(static_cast<std::size_t>(schedule.devices)),
        times_(sim::stage_times(costs)),
        recorder_(schedule, costs, options),
        barrier_(schedule.devices, options.optimizer_mode) {
    sim::OutputEnds{forward_end_, gradient_end_, split_b_end_}.reset(per_iteration_ * static_cast<std::size_t>(ring_));
    optimizer_ = sim::optimizer_times(costs);
    if (options.iterations > kRing) {
      stages_of_.resize(static_cast<std::size_t>(schedule.devices));
      for (int st = 0; st < schedule.stages; ++st) stages_of_[static_cast<std::size_t>(device_of(st))].push_back(st);
    }
  }

  SimResult run() {
    for (int d = s_.devices - 1; d >= 0; --d) enqueue(d);
    while (!work_.empty()) {
      int d = work_.back();
      work_.pop_back();
      state(d).queued = false;
      advance(d);
    }
    collect_deadlock();
    if (!recorder_.result().deadlocked()) check_invariants();
    return std::move(recorder_.result());
  }

 private:
  static constexpr SimTime kNever = -1;

  // The output ends of three iterations are kept, whatever the number simulated, so memory does
  // not grow with --iterations. Three suffice: a device that consumes another's outputs also
  // feeds it (a stage's forward goes to the next stage, whose backward comes back), so when a
  // device has finished iteration k - 1 each consumer of its outputs has reached k - 1, is done
  // with iteration k - 2, and nobody reads those ends again; the device clears them as it
  // starts iteration k, for iteration k + 1, whose consumers cannot get there before it has
  // started k.
  static constexpr int kRing = 3;

  std::size_t slot(int iteration, int stage, int microbatch) const {
    return static_cast<std::size_t>(iteration % ring_) * per_iteration_ +
           static_cast<std::size_t>(stage) * static_cast<std::size_t>(s_.microbatches) +
           static_cast<std::size_t>(microbatch);
  }
  int device_of(int stage) const { return s_.placement[static_cast<std::size_t>(stage)]; }
  const std::vector<Op>& ops_of(int device) const { return s_.order[static_cast<std::size_t>(device)]; }
  DeviceState& state(int device) { return state_[static_cast<std::size_t>(device)]; }

  void enqueue(int device) {
    DeviceState& st = state(device);
    if (st.queued) return;
    st.queued = true;
    work_.push_back(device);
  }

  // When the output `dep` asks for is available on `device`, or kNever if not produced yet.
  SimTime arrival(const Dependency& dep, int iteration, int device) const {
    const auto& ends = dep.need == Need::Forward         ? forward_end_
                       : dep.need == Need::InputGradient ? gradient_end_
                                                         : split_b_end_;
    SimTime end = ends[slot(iteration, dep.stage, dep.microbatch)];
    if (end == kNever) return kNever;
    return transfer_.arrival(end, device_of(dep.stage), device, crossed_boundary(dep));
  }

  // Runs the device's ops while their inputs are known; stops at one that waits.
  void advance(int device) {
    DeviceState& st = state(device);
    while (st.iteration < options_.iterations && !barrier_.waiting(device)) {
      if (st.next == ops_of(device).size()) {
        end_iteration(device);
        continue;
      }
      const Op& op = ops_of(device)[st.next];
      SimTime start = st.free_at;
      for (const Dependency& dep : dependencies_of(op, s_.stages)) {
        SimTime ready = arrival(dep, st.iteration, device);
        if (ready == kNever) return;  // the producer's end enqueues this device again
        start = std::max(start, ready);
      }
      run_op(device, op, start);
    }
  }

  void run_op(int device, const Op& op, SimTime start) {
    DeviceState& st = state(device);
    const SimTime end = start + sim::duration(times_, op);
    recorder_.op(device, st.iteration, st.next == 0, op, start, end, sim::memory_effect(times_, op));
    st.free_at = end;
    ++st.next;
    const std::size_t at = slot(st.iteration, op.stage, op.microbatch);
    switch (op.kind) {
      case OpKind::F:
        forward_end_[at] = end;
        if (op.stage + 1 < s_.stages) wake(op.stage + 1, device);
        break;
      case OpKind::B:
        split_b_end_[at] = end;
        gradient_end_[at] = end;
        if (op.stage > 0) wake(op.stage - 1, device);
        break;
      case OpKind::BW:
        gradient_end_[at] = end;
        if (op.stage > 0) wake(op.stage - 1, device);
        break;
      case OpKind::W:
        break;
      case OpKind::FB: {
        // Both outputs come at the end of the pair.
        forward_end_[at] = end;
        gradient_end_[slot(st.iteration, op.overlap_stage, op.overlap_microbatch)] = end;
        if (op.stage + 1 < s_.stages) wake(op.stage + 1, device);
        if (op.overlap_stage > 0) wake(op.overlap_stage - 1, device);
        break;
      }
    }
  }

  void wake(int stage, int from_device) {
    int to = device_of(stage);
    if (to != from_device) enqueue(to);
  }

  // The device has run this iteration's ops: it steps when the barrier says (sync: with all).
  void end_iteration(int device) {
    DeviceState& st = state(device);
    if (st.next == 0) recorder_.no_ops(device, st.iteration, st.free_at);
    const bool all = barrier_.arrive(device, st.free_at, [this](int d, SimTime start) { step(d, start); });
    if (all) {
      for (int d = 0; d < s_.devices; ++d) enqueue(d);
    }
  }

  void step(int device, SimTime start) {
    DeviceState& st = state(device);
    st.free_at = start + optimizer_[static_cast<std::size_t>(device)];
    recorder_.optimizer(device, st.iteration, start, st.free_at);
    st.next = 0;
    ++st.iteration;
    if (st.iteration + 1 < options_.iterations && options_.iterations > kRing) forget(device, st.iteration + 1);
  }

  // The ends of the device's outputs in the ring slot `iteration` takes over: unknown again.
  void forget(int device, int iteration) {
    const auto mb = static_cast<std::size_t>(s_.microbatches);
    for (int stage : stages_of_[static_cast<std::size_t>(device)]) {
      const std::size_t first = slot(iteration, stage, 0);
      for (LargeVector<SimTime>* ends : {&forward_end_, &gradient_end_, &split_b_end_}) {
        std::fill_n(ends->begin() + static_cast<std::ptrdiff_t>(first), mb, kNever);
      }
    }
  }

  // Each blocked device, and the cycle of devices that wait on each other (the devices whose
  // outputs its head op still needs).
  void collect_deadlock() {
    std::vector<std::vector<int>> waits_on(static_cast<std::size_t>(s_.devices));
    for (int d = 0; d < s_.devices; ++d) {
      DeviceState& st = state(d);
      if (st.iteration == options_.iterations || barrier_.waiting(d)) continue;
      BlockedDevice blocked{d, st.iteration, st.next, ops_of(d)[st.next], {}};
      for (const Dependency& dep : dependencies_of(blocked.head, s_.stages)) {
        if (arrival(dep, st.iteration, d) == kNever) {
          blocked.waiting_for.push_back(dep);
          waits_on[static_cast<std::size_t>(d)].push_back(device_of(dep.stage));
        }
      }
      recorder_.result().deadlock.push_back(std::move(blocked));
    }
    recorder_.result().deadlock_cycle = wait_cycle(waits_on);
  }

  // Invariants of a finished run: every op ran once per iteration, every device finished its
  // last iteration and holds only its static memory again.
  void check_invariants() const {
    for (std::size_t d = 0; d < state_.size(); ++d) {
      const int device = static_cast<int>(d);
      if (state_[d].iteration != options_.iterations ||
          recorder_.memory(device) != recorder_.result().devices[d].static_memory) {
        throw Error("internal error: device " + std::to_string(d) +
                    " did not end its last iteration with only its static memory");
      }
    }
  }

  const Schedule& s_;
  SimOptions options_;
  TransferRule transfer_;
  std::size_t per_iteration_;                // slots of one iteration: stages x micro-batches
  int ring_;                                 // iterations whose output ends are kept: min(iterations, kRing)
  std::vector<std::vector<int>> stages_of_;  // each device's stages, when the ring is reused
  std::vector<SimTime> optimizer_;
  LargeVector<SimTime>& forward_end_;   // end of F, per iteration, stage and micro-batch
  LargeVector<SimTime>& gradient_end_;  // end of B or BW
  LargeVector<SimTime>& split_b_end_;   // end of B only
  std::vector<DeviceState> state_;
  std::vector<sim::StageTimes> times_;
  sim::TimelineRecorder recorder_;
  sim::IterationBarrier barrier_;
  std::vector<int> work_;  // devices that may be able to advance
};

std::string first_problems(const std::vector<Problem>& problems) {
  std::string text = problems.front().message;
  if (problems.size() > 1) text += " (and " + std::to_string(problems.size() - 1) + " more problems)";
  return text;
}

}  // namespace

SimResult simulate(const Schedule& schedule, const CostModel& costs, const SimOptions& options) {
  std::vector<Problem> problems = find_structure_problems(schedule);
  if (!allows_timing(problems)) throw Error("the schedule cannot be timed: " + first_problems(problems));
  check_dimensions(costs, schedule.stages, schedule.devices);
  check_costs(costs);
  if (const std::optional<RunLimitProblem> limit = run_limit_problem(schedule, costs, options)) {
    throw RunLimitError(*limit);
  }
  SimWorkspace workspace;
  SimResult result = Simulation(schedule, costs, options, workspace).run();
  result.lower_bound = step_lower_bound(schedule, costs, options.optimizer_mode);
  return result;
}

SimResult simulate_trusted(const Schedule& schedule, const CostModel& costs, const SimOptions& options,
                           SimWorkspace& workspace) {
  return Simulation(schedule, costs, options, workspace).run();
}

}  // namespace pipeplan
