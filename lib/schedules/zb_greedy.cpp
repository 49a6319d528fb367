#include "schedules/zb_greedy.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <tuple>
#include <utility>

namespace pipeplan {

namespace {

constexpr SimTime kUnknown = -1;
constexpr SimTime kNoArrival = std::numeric_limits<SimTime>::max();

class GreedyPass {
 public:
  GreedyPass(const GreedyProblem& p, const GreedyChoices& c)
      : shape_(p.shape),
        costs_(p.costs),
        limit_(p.limit),
        choices_(c),
        stages_(p.shape.stages),
        m_(p.shape.microbatches),
        transfer_(ms_to_ns(p.costs.transfer.ms())),
        next_f_(static_cast<std::size_t>(stages_), 0),
        next_b_(static_cast<std::size_t>(stages_), 0),
        f_end_(static_cast<std::size_t>(stages_) * static_cast<std::size_t>(m_), kUnknown),
        b_end_(f_end_.size(), kUnknown),
        free_at_(static_cast<std::size_t>(p.shape.devices), 0),
        memory_(static_cast<std::size_t>(p.shape.devices), 0),
        pending_w_(static_cast<std::size_t>(p.shape.devices)),
        arrivals_(static_cast<std::size_t>(p.shape.devices)),
        held_(static_cast<std::size_t>(p.shape.devices)) {
    for (const StageCost& s : costs_.stages) {
      f_.push_back(ms_to_ns(s.f_ms));
      b_.push_back(ms_to_ns(s.b_ms));
      w_.push_back(ms_to_ns(s.w_ms));
    }
    for (std::size_t d = 0; d < free_at_.size(); ++d) memory_[d] = costs_.devices[d].static_memory_bytes;
    for (int s = stages_ - 1; s >= 0; --s) held_[static_cast<std::size_t>(device_of(s))].push_back(s);
    out_ = shape_;
    for (auto& ops : out_.order) ops.clear();
  }

  std::optional<Schedule> run() {
    for (int d = 0; d < shape_.devices; ++d) decisions_.push({0, d});
    const std::size_t total = 3 * static_cast<std::size_t>(stages_) * static_cast<std::size_t>(m_);
    while (!decisions_.empty()) {
      auto [now, d] = decisions_.top();
      decisions_.pop();
      if (free_at_[static_cast<std::size_t>(d)] <= now) decide(now, d);
    }
    if (scheduled_ != total) return std::nullopt;
    return std::move(out_);
  }

 private:
  std::size_t at(int stage, int mb) const {
    return static_cast<std::size_t>(stage) * static_cast<std::size_t>(m_) + static_cast<std::size_t>(mb);
  }
  int device_of(int stage) const { return shape_.placement[static_cast<std::size_t>(stage)]; }
  const StageCost& cost(int stage) const { return costs_.stages[static_cast<std::size_t>(stage)]; }

  // When the output that ended at `end` on the device of `stage` is on `device`.
  SimTime arrival(SimTime end, int stage, int device) const {
    if (end == kUnknown) return kNoArrival;
    return device_of(stage) == device ? end : end + transfer_;
  }

  SimTime forward_input(int s, int mb, int d) const {
    return s == 0 ? 0 : arrival(f_end_[at(s - 1, mb)], s - 1, d);
  }
  SimTime backward_input(int s, int mb, int d) const {
    SimTime own = arrival(f_end_[at(s, mb)], s, d);
    if (s + 1 == stages_) return own;
    return std::max(own, arrival(b_end_[at(s + 1, mb)], s + 1, d));
  }

  // Room for F of `stage`, keeping one forward's room for each later stage of this device that
  // still has forwards to run, so a V-shaped device cannot fill up with its first chunk.
  bool fits(int d, int stage) const {
    Bytes need = memory_[static_cast<std::size_t>(d)] + cost(stage).activation_bytes;
    for (int later : held_[static_cast<std::size_t>(d)]) {
      if (later > stage && next_f_[static_cast<std::size_t>(later)] < m_) need += cost(later).activation_bytes;
    }
    return need <= limit_[static_cast<std::size_t>(d)];
  }

  SimTime next_arrival(int d, SimTime now) {
    auto& q = arrivals_[static_cast<std::size_t>(d)];
    while (!q.empty() && q.top() <= now) q.pop();
    return q.empty() ? kNoArrival : q.top();
  }

  void decide(SimTime now, int d) {
    const auto& held = held_[static_cast<std::size_t>(d)];  // later stages first
    for (int s : held) {
      int mb = next_b_[static_cast<std::size_t>(s)];
      if (mb < m_ && backward_input(s, mb, d) <= now) return run(now, d, OpKind::B, s, mb);
    }
    auto& pending = pending_w_[static_cast<std::size_t>(d)];
    int forward_stage = -1;
    bool memory_full = false;
    for (int s : held) {
      int mb = next_f_[static_cast<std::size_t>(s)];
      if (mb >= m_ || forward_input(s, mb, d) > now) continue;
      if (fits(d, s)) {
        forward_stage = s;
        break;
      }
      memory_full = true;
    }
    if (forward_stage < 0 && memory_full && !pending.empty()) return run_w(now, d);
    SimTime next = next_arrival(d, now);
    if (forward_stage >= 0) {
      SimTime f_end = now + f_[static_cast<std::size_t>(forward_stage)];
      SimTime b_next = next_backward_input(d);
      if (!choices_.hold_forward_for_backward || b_next >= f_end) {
        return run(now, d, OpKind::F, forward_stage, next_f_[static_cast<std::size_t>(forward_stage)]);
      }
      if (!pending.empty() && now + w_time(pending.front()) <= b_next) return run_w(now, d);
      decisions_.push({b_next, d});
      return;
    }
    if (pending.empty()) return;  // a wake-up comes with the next input
    if (next == kNoArrival || now + w_time(pending.front()) <= next || choices_.fill_short_gaps) return run_w(now, d);
  }

  // The earliest known arrival of a backward input on device d (kNoArrival when none is known).
  SimTime next_backward_input(int d) const {
    SimTime best = kNoArrival;
    for (int s : held_[static_cast<std::size_t>(d)]) {
      int mb = next_b_[static_cast<std::size_t>(s)];
      if (mb < m_) best = std::min(best, backward_input(s, mb, d));
    }
    return best;
  }

  SimTime w_time(std::pair<int, int> w) const { return w_[static_cast<std::size_t>(w.first)]; }

  void run_w(SimTime now, int d) {
    auto [s, mb] = pending_w_[static_cast<std::size_t>(d)].front();
    pending_w_[static_cast<std::size_t>(d)].pop_front();
    run(now, d, OpKind::W, s, mb);
  }

  void run(SimTime now, int d, OpKind kind, int s, int mb) {
    const auto ds = static_cast<std::size_t>(d);
    const auto ss = static_cast<std::size_t>(s);
    out_.order[ds].push_back({kind, s, mb});
    ++scheduled_;
    const StageCost& c = cost(s);
    SimTime end = now;
    switch (kind) {
      case OpKind::F:
        end += f_[ss];
        memory_[ds] += c.activation_bytes;
        f_end_[at(s, mb)] = end;
        ++next_f_[ss];
        if (s + 1 < stages_) notify(end, s + 1, d);
        break;
      case OpKind::B:
        end += b_[ss];
        memory_[ds] -= c.activation_bytes - c.w_activation_bytes;
        b_end_[at(s, mb)] = end;
        ++next_b_[ss];
        pending_w_[ds].emplace_back(s, mb);
        if (s > 0) notify(end, s - 1, d);
        break;
      case OpKind::W:
        end += w_[ss];
        memory_[ds] -= c.w_activation_bytes;
        break;
      case OpKind::BW:
      case OpKind::FB:
        break;  // a pass plans split backwards only, never these
    }
    free_at_[ds] = end;
    decisions_.push({end, d});
  }

  // The consumer of an output ended at `end` on device `from` may decide again once it arrives.
  void notify(SimTime end, int stage, int from) {
    int to = device_of(stage);
    SimTime when = to == from ? end : end + transfer_;
    arrivals_[static_cast<std::size_t>(to)].push(when);
    // A device busy past the arrival decides at its own end, which is queued already.
    if (free_at_[static_cast<std::size_t>(to)] < when) decisions_.push({when, to});
  }

  const Schedule& shape_;
  const CostModel& costs_;
  const std::vector<Bytes>& limit_;
  GreedyChoices choices_;
  int stages_;
  int m_;
  SimTime transfer_;
  std::vector<SimTime> f_, b_, w_;
  std::vector<int> next_f_, next_b_;
  std::vector<SimTime> f_end_, b_end_;
  std::vector<SimTime> free_at_;
  std::vector<Bytes> memory_;
  std::vector<std::deque<std::pair<int, int>>> pending_w_;
  std::vector<std::priority_queue<SimTime, std::vector<SimTime>, std::greater<>>> arrivals_;
  std::vector<std::vector<int>> held_;  // stages of each device, later stages first
  // Decision points, ordered by (time, device): deterministic.
  std::priority_queue<std::pair<SimTime, int>, std::vector<std::pair<SimTime, int>>, std::greater<>> decisions_;
  std::size_t scheduled_ = 0;
  Schedule out_;
};

}  // namespace

std::optional<Schedule> greedy_zero_bubble(const GreedyProblem& problem, const GreedyChoices& choices) {
  return GreedyPass(problem, choices).run();
}

}  // namespace pipeplan
