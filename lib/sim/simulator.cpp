#include "sim/simulator.hpp"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <string>
#include <tuple>

#include "model/dependencies.hpp"
#include "model/error.hpp"
#include "model/structure.hpp"

namespace pipeplan {

namespace {

struct StageTimes {
  SimTime f, b, w, bw;
  Bytes alloc_f, free_b, free_w;  // F allocates alloc_f; B frees free_b, W free_w, BW alloc_f
};

// Events are totally ordered by (time, device, sequence number), so equal-time decisions never
// depend on container order and every run is identical.
struct Event {
  SimTime time;
  int device;
  std::uint64_t seq;
  bool op_end;  // false: a wake-up, an input may have arrived
  friend bool operator>(const Event& a, const Event& b) {
    return std::tie(a.time, a.device, a.seq) > std::tie(b.time, b.device, b.seq);
  }
};

struct DeviceState {
  std::size_t next = 0;  // index of the next op to start
  bool running = false;
  Bytes memory = 0;
};

class Simulation {
 public:
  Simulation(const Schedule& schedule, const CostModel& costs)
      : s_(schedule),
        transfer_(ms_to_ns(costs.transfer.ms())),
        slots_(static_cast<std::size_t>(schedule.stages) * static_cast<std::size_t>(schedule.microbatches)),
        forward_end_(slots_, kNever),
        gradient_end_(slots_, kNever),
        split_b_end_(slots_, kNever),
        state_(static_cast<std::size_t>(schedule.devices)) {
    for (const StageCost& c : costs.stages) {
      times_.push_back({ms_to_ns(c.f_ms), ms_to_ns(c.b_ms), ms_to_ns(c.w_ms), ms_to_ns(c.b_ms + c.w_ms),
                        c.activation_bytes, c.activation_bytes - c.w_activation_bytes,
                        c.w_activation_bytes});
    }
    result_.devices.resize(state_.size());
    for (std::size_t d = 0; d < state_.size(); ++d) {
      DeviceTimeline& t = result_.devices[d];
      t.static_memory = costs.devices[d].static_memory_bytes;
      t.peak_memory = t.static_memory;
      t.optimizer = ms_to_ns(costs.devices[d].optimizer_ms);
      t.memory.push_back({0, t.static_memory});
      state_[d].memory = t.static_memory;
    }
    result_.ops.reserve(schedule.op_count());
  }

  SimResult run() {
    for (int d = 0; d < s_.devices; ++d) push(0, d, false);
    while (!events_.empty()) {
      Event e = events_.top();
      events_.pop();
      if (e.op_end) finish(e.time, e.device);
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

  std::size_t slot(int stage, int microbatch) const {
    return static_cast<std::size_t>(stage) * static_cast<std::size_t>(s_.microbatches) +
           static_cast<std::size_t>(microbatch);
  }
  int device_of(int stage) const { return s_.placement[static_cast<std::size_t>(stage)]; }
  const std::vector<Op>& ops_of(int device) const { return s_.order[static_cast<std::size_t>(device)]; }
  DeviceState& state(int device) { return state_[static_cast<std::size_t>(device)]; }
  DeviceTimeline& timeline(int device) { return result_.devices[static_cast<std::size_t>(device)]; }
  const StageTimes& times(int stage) const { return times_[static_cast<std::size_t>(stage)]; }

  void push(SimTime time, int device, bool op_end) { events_.push({time, device, seq_++, op_end}); }

  // When the output `dep` asks for is available on `device`, or kNever if not produced yet.
  SimTime arrival(const Dependency& dep, int device) const {
    const auto& ends = dep.need == Need::Forward ? forward_end_
                       : dep.need == Need::InputGradient ? gradient_end_
                                                         : split_b_end_;
    SimTime end = ends[slot(dep.stage, dep.microbatch)];
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
    if (st.running || st.next == ops_of(device).size()) return;
    const Op& op = ops_of(device)[st.next];
    for (const Dependency& dep : dependencies_of(op, s_.stages)) {
      SimTime ready = arrival(dep, device);
      if (ready == kNever || ready > now) return;  // a wake-up comes when it arrives
    }
    SimTime end = now + duration(op);
    result_.ops.push_back({device, op, now, end});
    DeviceTimeline& t = timeline(device);
    if (st.next == 0) t.first_start = now;
    t.busy += end - now;
    if (op.kind == OpKind::F) change_memory(device, now, times(op.stage).alloc_f);
    st.running = true;
    ++st.next;
    push(end, device, true);
  }

  void finish(SimTime now, int device) {
    DeviceState& st = state(device);
    st.running = false;
    const Op& op = ops_of(device)[st.next - 1];
    timeline(device).last_end = now;
    result_.makespan = std::max(result_.makespan, now);
    const StageTimes& t = times(op.stage);
    std::size_t at = slot(op.stage, op.microbatch);
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

  // The consumer on the device of `stage` may start once the output has arrived there.
  void wake(SimTime produced, int stage, int from_device) {
    int to = device_of(stage);
    if (to != from_device) push(produced + transfer_, to, false);
  }

  void change_memory(int device, SimTime now, Bytes delta) {
    if (delta == 0) return;
    DeviceState& st = state(device);
    DeviceTimeline& t = timeline(device);
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
      if (st.next == ops_of(d).size()) continue;
      BlockedDevice blocked{d, st.next, ops_of(d)[st.next], {}};
      for (const Dependency& dep : dependencies_of(blocked.head, s_.stages)) {
        if (arrival(dep, d) == kNever) blocked.waiting_for.push_back(dep);
      }
      result_.deadlock.push_back(std::move(blocked));
    }
  }

  // Invariants of a finished run: every op ran once, every device is idle and holds only its
  // static memory again.
  void check_invariants() const {
    if (result_.ops.size() != s_.op_count()) {
      throw Error("internal error: the simulator ran " + std::to_string(result_.ops.size()) +
                  " ops of " + std::to_string(s_.op_count()));
    }
    for (std::size_t d = 0; d < state_.size(); ++d) {
      if (state_[d].running || state_[d].memory != result_.devices[d].static_memory) {
        throw Error("internal error: device " + std::to_string(d) +
                    " did not end idle with only its static memory");
      }
    }
  }

  const Schedule& s_;
  SimTime transfer_;
  std::size_t slots_;
  std::vector<StageTimes> times_;
  std::vector<SimTime> forward_end_;   // end of F(s,m)
  std::vector<SimTime> gradient_end_;  // end of B(s,m) or BW(s,m)
  std::vector<SimTime> split_b_end_;   // end of B(s,m) only
  std::vector<DeviceState> state_;
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

SimResult simulate(const Schedule& schedule, const CostModel& costs) {
  std::vector<Problem> problems = find_structure_problems(schedule);
  if (!allows_timing(problems)) {
    throw Error("the schedule cannot be timed: " + first_problems(problems));
  }
  check_dimensions(costs, schedule.stages, schedule.devices);
  check_costs(costs);
  return Simulation(schedule, costs).run();
}

}  // namespace pipeplan
