#include "schedules/zb_greedy.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <span>
#include <utility>

#include "schedules/wake_queue.hpp"
#include "sim/transfer_rule.hpp"

namespace pipeplan {

namespace {

constexpr SimTime kUnknown = -1;
constexpr SimTime kNoArrival = std::numeric_limits<SimTime>::max();

class GreedyPass {
 public:
  GreedyPass(const GreedyProblem& p, const GreedyChoices& c, std::vector<PlannedOp>* planned)
      : choices_(c),
        planned_(planned),
        stages_(p.shape.stages),
        m_(p.shape.microbatches),
        transfer_(p.costs),
        stage_(static_cast<std::size_t>(stages_)),
        device_(static_cast<std::size_t>(p.shape.devices)),
        end_(static_cast<std::size_t>(stages_) * static_cast<std::size_t>(m_), Ends{kUnknown, kUnknown}),
        arrivals_(device_.size()),
        wake_(p.shape.devices) {
    for (std::size_t s = 0; s < stage_.size(); ++s) {
      const StageCost& cost = p.costs.stages[s];
      stage_[s] = Stage{p.shape.placement[s],
                        0,
                        0,
                        ms_to_ns(cost.f_ms),
                        ms_to_ns(cost.b_ms),
                        ms_to_ns(cost.w_ms),
                        cost.activation_bytes,
                        cost.w_activation_bytes};
    }
    // Each device's stages, later stages first, side by side in held_; its W queue holds at
    // most one W per micro-batch of each of its stages.
    std::size_t w_slots = 0;
    for (std::size_t d = 0; d < device_.size(); ++d) {
      Device& dev = device_[d];
      dev.memory = p.costs.devices[d].static_memory_bytes;
      dev.limit = p.limit[d];
      dev.held_begin = held_.size();
      for (int s = stages_ - 1; s >= 0; --s) {
        if (stage(s).device == static_cast<int>(d)) held_.push_back(s);
      }
      dev.held_end = held_.size();
      dev.w_head = dev.w_tail = w_slots;
      w_slots += (dev.held_end - dev.held_begin) * static_cast<std::size_t>(m_);
    }
    pending_w_.resize(w_slots);
    out_ = p.shape;
    for (std::size_t d = 0; d < out_.order.size(); ++d) {
      out_.order[d].clear();
      out_.order[d].reserve(3 * (device_[d].held_end - device_[d].held_begin) * static_cast<std::size_t>(m_));
    }
  }

  std::optional<GreedySchedule> run() {
    // Every decision sets the device's next wake-up: the end of what it runs, or its next input.
    while (wake_.time() != WakeQueue::kNever) decide(wake_.time(), wake_.device());
    if (scheduled_ != 3 * static_cast<std::size_t>(stages_) * static_cast<std::size_t>(m_)) return std::nullopt;
    GreedySchedule planned{std::move(out_), !ran_late_, 0, 0};
    for (const Device& dev : device_) {
      if (dev.first_start == kUnknown) continue;  // a device without stages
      planned.makespan = std::max(planned.makespan, dev.free_at);
      planned.longest_span = std::max(planned.longest_span, dev.free_at - dev.first_start);
    }
    return planned;
  }

 private:
  struct Stage {
    int device;
    int next_f;  // the micro-batch of its next F, B
    int next_b;
    SimTime f, b, w;  // durations
    Bytes activation, w_activation;
  };
  struct Device {
    SimTime free_at = 0;
    SimTime first_start = kUnknown;
    Bytes memory = 0;
    Bytes limit = 0;
    std::size_t held_begin = 0, held_end = 0;  // its stages in held_
    std::size_t w_head = 0, w_tail = 0;        // its pending W ops in pending_w_, oldest first
  };
  struct Ends {
    SimTime f, b;  // when the F and the B of a (stage, micro-batch) ended; kUnknown until run
  };
  struct PendingW {
    int stage, microbatch;
  };

  Stage& stage(int s) { return stage_[static_cast<std::size_t>(s)]; }
  const Stage& stage(int s) const { return stage_[static_cast<std::size_t>(s)]; }
  Device& device(int d) { return device_[static_cast<std::size_t>(d)]; }
  const Device& device(int d) const { return device_[static_cast<std::size_t>(d)]; }
  std::span<const int> held(int d) const {
    return std::span<const int>(held_).subspan(device(d).held_begin, device(d).held_end - device(d).held_begin);
  }
  bool has_pending_w(int d) const { return device(d).w_head != device(d).w_tail; }
  SimTime pending_w_time(int d) const { return stage(pending_w_[device(d).w_head].stage).w; }

  // Micro-batch major: the ends a decision reads (stage s and its neighbours, one micro-batch)
  // share a cache line or two.
  std::size_t at(int stage, int mb) const {
    return static_cast<std::size_t>(mb) * static_cast<std::size_t>(stages_) + static_cast<std::size_t>(stage);
  }

  // When the output that ended at `end` on the device of stage `s` is on `d`, across boundary
  // `b` (s's and its consumer's, the lower of the two stages) when the devices differ.
  SimTime arrival(SimTime end, int s, int d, int b) const {
    if (end == kUnknown) return kNoArrival;
    return transfer_.arrival(end, stage(s).device, d, b);
  }

  SimTime forward_input(int s, int mb, int d) const {
    return s == 0 ? 0 : arrival(end_[at(s - 1, mb)].f, s - 1, d, s - 1);
  }
  // d runs stage s, so s's own forward is there as soon as it ends.
  SimTime backward_input(int s, int mb, int d) const {
    const SimTime own = end_[at(s, mb)].f == kUnknown ? kNoArrival : end_[at(s, mb)].f;
    if (s + 1 == stages_) return own;
    return std::max(own, arrival(end_[at(s + 1, mb)].b, s + 1, d, s));
  }

  // Room for F of stage `s`, keeping one forward's room for each later stage of this device that
  // still has forwards to run, so a V-shaped device cannot fill up with its first chunk.
  bool fits(int d, int s) const {
    Bytes need = device(d).memory + stage(s).activation;
    for (int later : held(d)) {
      if (later > s && stage(later).next_f < m_) need += stage(later).activation;
    }
    return need <= device(d).limit;
  }

  SimTime next_arrival(int d, SimTime now) {
    auto& q = arrivals_[static_cast<std::size_t>(d)];
    while (!q.empty() && q.top() <= now) q.pop();
    return q.empty() ? kNoArrival : q.top();
  }

  void decide(SimTime now, int d) {
    if (!run_next(now, d)) wake_.set(d, next_arrival(d, now));
  }

  // Runs d's next op, if any, and says whether it did.
  bool run_next(SimTime now, int d) {
    for (int s : held(d)) {
      const int mb = stage(s).next_b;
      if (mb >= m_) continue;
      const SimTime input = backward_input(s, mb, d);
      if (input <= now) return run(now, input, d, OpKind::B, s, mb), true;
    }
    int forward_stage = -1;
    SimTime forward_ready = 0;
    bool memory_full = false;
    for (int s : held(d)) {
      const int mb = stage(s).next_f;
      if (mb >= m_) continue;
      const SimTime input = forward_input(s, mb, d);
      if (input > now) continue;
      if (fits(d, s)) {
        forward_stage = s;
        forward_ready = input;
        break;
      }
      memory_full = true;
    }
    const bool pending = has_pending_w(d);
    if (forward_stage < 0 && memory_full && pending) return run_w(now, d), true;
    if (forward_stage >= 0) {
      const Stage& f = stage(forward_stage);
      if (!choices_.hold_forward_for_backward)
        return run(now, forward_ready, d, OpKind::F, forward_stage, f.next_f), true;
      const SimTime b_next = next_backward_input(d);
      if (b_next >= now + f.f) return run(now, forward_ready, d, OpKind::F, forward_stage, f.next_f), true;
      if (pending && now + pending_w_time(d) <= b_next) return run_w(now, d), true;
      return false;  // b_next is one of the arrivals: the device wakes by then
    }
    if (!pending) return false;
    if (choices_.fill_short_gaps || now + pending_w_time(d) <= next_arrival(d, now)) return run_w(now, d), true;
    return false;
  }

  // The earliest known arrival of a backward input on device d (kNoArrival when none is known).
  SimTime next_backward_input(int d) const {
    SimTime best = kNoArrival;
    for (int s : held(d)) {
      int mb = stage(s).next_b;
      if (mb < m_) best = std::min(best, backward_input(s, mb, d));
    }
    return best;
  }

  // A W's input, its B, ran earlier on the same device: it is ready once the device is free.
  void run_w(SimTime now, int d) {
    const PendingW w = pending_w_[device(d).w_head++];
    run(now, 0, d, OpKind::W, w.stage, w.microbatch);
  }

  // Runs an op at `now` whose inputs arrived at `input`.
  void run(SimTime now, SimTime input, int d, OpKind kind, int s, int mb) {
    Device& dev = device(d);
    Stage& st = stage(s);
    ran_late_ = ran_late_ || now != std::max(dev.free_at, input);
    if (dev.first_start == kUnknown) dev.first_start = now;
    out_.order[static_cast<std::size_t>(d)].push_back({kind, s, mb});
    if (planned_ != nullptr) planned_->push_back({Op{kind, s, mb}, d, now, input});
    ++scheduled_;
    SimTime end = now;
    switch (kind) {
      case OpKind::F:
        end += st.f;
        dev.memory += st.activation;
        end_[at(s, mb)].f = end;
        ++st.next_f;
        if (s + 1 < stages_) notify(end, s + 1, d, s);
        break;
      case OpKind::B:
        end += st.b;
        dev.memory -= st.activation - st.w_activation;
        end_[at(s, mb)].b = end;
        ++st.next_b;
        pending_w_[dev.w_tail++] = PendingW{s, mb};
        if (s > 0) notify(end, s - 1, d, s - 1);
        break;
      case OpKind::W:
        end += st.w;
        dev.memory -= st.w_activation;
        break;
      case OpKind::BW:
      case OpKind::FB:
        break;  // a pass plans split backwards only, never these
    }
    dev.free_at = end;
    wake_.set(d, end);
  }

  // The consumer of an output ended at `end` on device `from` may decide again once it arrives
  // across boundary `b`.
  void notify(SimTime end, int s, int from, int b) {
    const int to = stage(s).device;
    const SimTime when = transfer_.arrival(end, from, to, b);
    arrivals_[static_cast<std::size_t>(to)].push(when);
    // A device busy past the arrival decides at its own end, which is set already.
    if (device(to).free_at < when && when < wake_.time_of(to)) wake_.set(to, when);
  }

  GreedyChoices choices_;
  std::vector<PlannedOp>* planned_;  // where to record each op as planned, when asked
  int stages_;
  int m_;
  TransferRule transfer_;
  std::vector<Stage> stage_;
  std::vector<Device> device_;
  std::vector<int> held_;  // each device's stages, later stages first, device after device
  std::vector<Ends> end_;
  std::vector<PendingW> pending_w_;
  std::vector<std::priority_queue<SimTime, std::vector<SimTime>, std::greater<>>> arrivals_;
  WakeQueue wake_;  // decisions in (time, device) order: deterministic
  std::size_t scheduled_ = 0;
  bool ran_late_ = false;  // some op started after the moment its device and inputs allowed
  Schedule out_;
};

}  // namespace

std::optional<GreedySchedule> greedy_zero_bubble(const GreedyProblem& problem, const GreedyChoices& choices) {
  return GreedyPass(problem, choices, nullptr).run();
}

std::optional<GreedySchedule> greedy_zero_bubble(const GreedyProblem& problem, const GreedyChoices& choices,
                                                 std::vector<PlannedOp>& planned) {
  return GreedyPass(problem, choices, &planned).run();
}

}  // namespace pipeplan
