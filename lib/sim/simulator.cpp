#include "sim/simulator.hpp"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <string>
#include <tuple>

#include "model/dependencies.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"
#include "model/structure.hpp"
#include "sim/lower_bound.hpp"

namespace pipeplan {

namespace {

struct StageTimes {
  SimTime f, b, w, bw;
  Bytes alloc_f, free_b, free_w;  // F allocates alloc_f; B frees free_b, W free_w, BW alloc_f
};

enum class EventKind : unsigned char { Wake, OpEnd, OptimizerEnd };

// Events are totally ordered by (time, device, sequence number), so equal-time decisions never
// depend on container order and every run is identical.
struct Event {
  SimTime time;
  int device;
  std::uint64_t seq;
  EventKind kind;
  friend bool operator>(const Event& a, const Event& b) {
    return std::tie(a.time, a.device, a.seq) > std::tie(b.time, b.device, b.seq);
  }
};

struct DeviceState {
  std::size_t next = 0;  // index of the next op to start in this iteration
  int iteration = 0;
  bool running = false;    // an op or the optimizer step is running
  bool stepping = false;   // done with this iteration's ops, waiting for or in the optimizer step
  Bytes memory = 0;
};

class Simulation {
 public:
  Simulation(const Schedule& schedule, const CostModel& costs, const SimOptions& options)
      : s_(schedule),
        options_(options),
        transfer_(ms_to_ns(costs.transfer.ms())),
        per_iteration_(static_cast<std::size_t>(schedule.stages) * static_cast<std::size_t>(schedule.microbatches)),
        forward_end_(per_iteration_ * static_cast<std::size_t>(options.iterations), kNever),
        gradient_end_(forward_end_.size(), kNever),
        split_b_end_(forward_end_.size(), kNever),
        state_(static_cast<std::size_t>(schedule.devices)) {
    for (const StageCost& c : costs.stages) {
      times_.push_back({ms_to_ns(c.f_ms), ms_to_ns(c.b_ms), ms_to_ns(c.w_ms), ms_to_ns(c.b_ms + c.w_ms),
                        c.activation_bytes, c.activation_bytes - c.w_activation_bytes, c.w_activation_bytes});
    }
    for (const DeviceCost& d : costs.devices) optimizer_.push_back(ms_to_ns(d.optimizer_ms));
    result_.options = options;
    result_.devices.resize(state_.size());
    for (std::size_t d = 0; d < state_.size(); ++d) {
      DeviceTimeline& t = result_.devices[d];
      t.iterations.resize(static_cast<std::size_t>(options.iterations));
      t.static_memory = costs.devices[d].static_memory_bytes;
      t.peak_memory = t.static_memory;
      t.memory.push_back({0, t.static_memory});
      state_[d].memory = t.static_memory;
    }
    result_.ops.reserve(schedule.op_count() * static_cast<std::size_t>(options.iterations));
  }

  SimResult run() {
    for (int d = 0; d < s_.devices; ++d) push(0, d, EventKind::Wake);
    while (!events_.empty()) {
      Event e = events_.top();
      events_.pop();
      if (e.kind == EventKind::OpEnd) finish_op(e.time, e.device);
      if (e.kind == EventKind::OptimizerEnd) finish_step(e.time, e.device);
      try_start(e.time, e.device);
    }
    collect_deadlock();
    std::stable_sort(result_.ops.begin(), result_.ops.end(), [](const OpTiming& a, const OpTiming& b) {
      return std::tie(a.start, a.device) < std::tie(b.start, b.device);
    });
    if (!result_.deadlocked()) check_invariants();
    return std::move(result_);
  }

 private:
  static constexpr SimTime kNever = -1;

  std::size_t slot(int iteration, int stage, int microbatch) const {
    return static_cast<std::size_t>(iteration) * per_iteration_ +
           static_cast<std::size_t>(stage) * static_cast<std::size_t>(s_.microbatches) +
           static_cast<std::size_t>(microbatch);
  }
  int device_of(int stage) const { return s_.placement[static_cast<std::size_t>(stage)]; }
  const std::vector<Op>& ops_of(int device) const { return s_.order[static_cast<std::size_t>(device)]; }
  DeviceState& state(int device) { return state_[static_cast<std::size_t>(device)]; }
  IterationTimes& times_of(int device, int iteration) {
    return result_.devices[static_cast<std::size_t>(device)].iterations[static_cast<std::size_t>(iteration)];
  }
  const StageTimes& times(int stage) const { return times_[static_cast<std::size_t>(stage)]; }

  void push(SimTime time, int device, EventKind kind) { events_.push({time, device, seq_++, kind}); }

  // When the output `dep` asks for is available on `device`, or kNever if not produced yet.
  SimTime arrival(const Dependency& dep, int iteration, int device) const {
    const auto& ends = dep.need == Need::Forward ? forward_end_
                       : dep.need == Need::InputGradient ? gradient_end_
                                                         : split_b_end_;
    SimTime end = ends[slot(iteration, dep.stage, dep.microbatch)];
    if (end == kNever) return kNever;
    return device_of(dep.stage) == device ? end : end + transfer_;
  }

  SimTime duration(const Op& op) const {
    const StageTimes& t = times(op.stage);
    switch (op.kind) {
      case OpKind::F: return t.f;
      case OpKind::B: return t.b;
      case OpKind::W: return t.w;
      case OpKind::BW: return t.bw;
    }
    return 0;
  }

  void try_start(SimTime now, int device) {
    DeviceState& st = state(device);
    if (st.running || st.stepping || st.iteration == options_.iterations) return;
    if (st.next == ops_of(device).size()) {
      enter_step(now, device);
      return;
    }
    const Op& op = ops_of(device)[st.next];
    for (const Dependency& dep : dependencies_of(op, s_.stages)) {
      SimTime ready = arrival(dep, st.iteration, device);
      if (ready == kNever || ready > now) return;  // a wake-up comes when it arrives
    }
    SimTime end = now + duration(op);
    result_.ops.push_back({device, st.iteration, op, now, end});
    IterationTimes& t = times_of(device, st.iteration);
    if (st.next == 0) t.first_start = now;
    t.busy += end - now;
    if (op.kind == OpKind::F) change_memory(device, now, times(op.stage).alloc_f);
    st.running = true;
    ++st.next;
    push(end, device, EventKind::OpEnd);
  }

  void finish_op(SimTime now, int device) {
    DeviceState& st = state(device);
    st.running = false;
    const Op& op = ops_of(device)[st.next - 1];
    times_of(device, st.iteration).last_end = now;
    if (st.iteration == 0) result_.makespan = std::max(result_.makespan, now);
    const StageTimes& t = times(op.stage);
    std::size_t at = slot(st.iteration, op.stage, op.microbatch);
    switch (op.kind) {
      case OpKind::F:
        forward_end_[at] = now;
        if (op.stage + 1 < s_.stages) wake(now, op.stage + 1, device);
        break;
      case OpKind::B:
        split_b_end_[at] = now;
        gradient_end_[at] = now;
        change_memory(device, now, -t.free_b);
        if (op.stage > 0) wake(now, op.stage - 1, device);
        break;
      case OpKind::BW:
        gradient_end_[at] = now;
        change_memory(device, now, -t.alloc_f);
        if (op.stage > 0) wake(now, op.stage - 1, device);
        break;
      case OpKind::W:
        change_memory(device, now, -t.free_w);
        break;
    }
  }

  // The device has run this iteration's ops. Post-validation: it steps now. Sync: it waits
  // until every device is here (the all-reduce before the step), then all step at once.
  void enter_step(SimTime now, int device) {
    DeviceState& st = state(device);
    IterationTimes& t = times_of(device, st.iteration);
    if (st.next == 0) t.first_start = t.last_end = now;  // a device with no ops
    st.stepping = true;
    if (options_.optimizer_mode == OptimizerMode::PostValidation) {
      start_step(now, device);
      return;
    }
    if (++at_barrier_ < s_.devices) return;
    at_barrier_ = 0;
    for (int d = 0; d < s_.devices; ++d) start_step(now, d);
  }

  void start_step(SimTime now, int device) {
    DeviceState& st = state(device);
    IterationTimes& t = times_of(device, st.iteration);
    t.optimizer_start = now;
    t.optimizer_end = now + optimizer_[static_cast<std::size_t>(device)];
    st.running = true;
    push(t.optimizer_end, device, EventKind::OptimizerEnd);
  }

  void finish_step(SimTime, int device) {
    DeviceState& st = state(device);
    st.running = false;
    st.stepping = false;
    st.next = 0;
    ++st.iteration;
  }

  // The consumer on the device of `stage` may start once the output has arrived there.
  void wake(SimTime produced, int stage, int from_device) {
    int to = device_of(stage);
    if (to != from_device) push(produced + transfer_, to, EventKind::Wake);
  }

  void change_memory(int device, SimTime now, Bytes delta) {
    if (delta == 0) return;
    DeviceState& st = state(device);
    DeviceTimeline& t = result_.devices[static_cast<std::size_t>(device)];
    st.memory += delta;
    if (t.memory.back().time == now) {
      t.memory.back().bytes = st.memory;
    } else {
      t.memory.push_back({now, st.memory});
    }
    if (st.memory > t.peak_memory) {
      t.peak_memory = st.memory;
      t.peak_time = now;
    }
  }

  void collect_deadlock() {
    for (int d = 0; d < s_.devices; ++d) {
      DeviceState& st = state(d);
      if (st.iteration == options_.iterations || st.stepping) continue;
      BlockedDevice blocked{d, st.iteration, st.next, ops_of(d)[st.next], {}};
      for (const Dependency& dep : dependencies_of(blocked.head, s_.stages)) {
        if (arrival(dep, st.iteration, d) == kNever) blocked.waiting_for.push_back(dep);
      }
      result_.deadlock.push_back(std::move(blocked));
    }
  }

  // Invariants of a finished run: every op ran once per iteration, every device finished its
  // last iteration and holds only its static memory again.
  void check_invariants() const {
    if (result_.ops.size() != s_.op_count() * static_cast<std::size_t>(options_.iterations)) {
      throw Error("internal error: the simulator ran " + std::to_string(result_.ops.size()) + " ops of " +
                  std::to_string(s_.op_count() * static_cast<std::size_t>(options_.iterations)));
    }
    for (std::size_t d = 0; d < state_.size(); ++d) {
      if (state_[d].iteration != options_.iterations || state_[d].memory != result_.devices[d].static_memory) {
        throw Error("internal error: device " + std::to_string(d) +
                    " did not end its last iteration with only its static memory");
      }
    }
  }

  const Schedule& s_;
  SimOptions options_;
  SimTime transfer_;
  std::size_t per_iteration_;  // slots of one iteration: stages x micro-batches
  std::vector<StageTimes> times_;
  std::vector<SimTime> optimizer_;
  std::vector<SimTime> forward_end_;   // end of F, per iteration, stage and micro-batch
  std::vector<SimTime> gradient_end_;  // end of B or BW
  std::vector<SimTime> split_b_end_;   // end of B only
  std::vector<DeviceState> state_;
  int at_barrier_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  SimResult result_;
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
  if (options.iterations < 1 ||
      static_cast<double>(options.iterations) * static_cast<double>(schedule.op_count()) > static_cast<double>(kMaxOps)) {
    throw Error("iterations: expected 1 or more, with iterations x ops at most " + std::to_string(kMaxOps) +
                ", got " + std::to_string(options.iterations));
  }
  SimResult result = Simulation(schedule, costs, options).run();
  result.lower_bound = step_lower_bound(schedule, costs, options.optimizer_mode);
  return result;
}

}  // namespace pipeplan
