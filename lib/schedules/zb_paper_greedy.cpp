#include "schedules/zb_paper_greedy.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "sim/transfer_rule.hpp"

namespace pipeplan {

namespace {

class PaperPass {
 public:
  PaperPass(const GreedyProblem& p, const PaperGreedyChoices& c)
      : choices_(c),
        stages_(p.shape.stages),
        m_(p.shape.microbatches),
        transfer_(p.costs),
        stage_(static_cast<std::size_t>(stages_)),
        f_end_(static_cast<std::size_t>(stages_) * static_cast<std::size_t>(m_), 0),
        b_end_(f_end_.size(), 0) {
    for (std::size_t s = 0; s < stage_.size(); ++s) {
      const StageCost& cost = p.costs.stages[s];
      Stage& st = stage_[s];
      st.f = ms_to_ns(cost.f_ms);
      st.b = ms_to_ns(cost.b_ms);
      st.w = ms_to_ns(cost.w_ms);
      st.activation = cost.activation_bytes;
      st.w_activation = cost.w_activation_bytes;
      st.memory = p.costs.devices[s].static_memory_bytes;
      st.limit = p.limit[s];
    }
    out_ = p.shape;
    for (auto& ops : out_.order) {
      ops.clear();
      ops.reserve(3 * static_cast<std::size_t>(m_));
    }
  }

  std::optional<GreedySchedule> run() {
    if (!warm_up()) return std::nullopt;
    for (int round = 1; round < m_; ++round) {
      if (!steady_round(round)) return std::nullopt;
    }
    for (int s = 0; s < stages_; ++s) {
      while (st(s).w_count < m_) put(s, OpKind::W);
    }
    GreedySchedule planned{std::move(out_), true, 0, 0};
    for (const Stage& s : stage_) {
      planned.makespan = std::max(planned.makespan, s.end);
      planned.longest_span = std::max(planned.longest_span, s.end - s.first_start);
    }
    return planned;
  }

 private:
  struct Stage {
    SimTime f = 0, b = 0, w = 0;  // durations
    Bytes activation = 0, w_activation = 0;
    Bytes memory = 0, limit = 0;
    int f_count = 0, b_count = 0, w_count = 0;
    SimTime end = 0;          // when its device is free
    SimTime first_start = 0;  // start of its first op
    SimTime idle = 0;         // idle time since its first op
  };

  Stage& st(int s) { return stage_[static_cast<std::size_t>(s)]; }
  std::size_t at(int s, int mb) const {
    return static_cast<std::size_t>(s) * static_cast<std::size_t>(m_) + static_cast<std::size_t>(mb);
  }
  SimTime worst_idle() const {
    SimTime worst = 0;
    for (const Stage& s : stage_) worst = std::max(worst, s.idle);
    return worst;
  }
  // The transfer across boundary b: stage b's device (b) to stage b + 1's (b + 1), one stage per
  // device, so every boundary joins two devices. The authors' heuristic has one communication
  // time; with a time per boundary, each arrival and each estimate of one takes the boundary it
  // crosses, which every use here knows.
  SimTime comm(int b) const { return transfer_.delay(b, b + 1, b); }
  bool fits_forward(int s) { return st(s).memory + st(s).activation <= st(s).limit; }

  // Appends the next op of `kind` to stage s's device, at the earliest moment its device and its
  // input allow (the reference's "put").
  void put(int s, OpKind kind) {
    Stage& x = st(s);
    SimTime duration = 0;
    SimTime ready = 0;
    int mb = 0;
    switch (kind) {
      case OpKind::F:
        mb = x.f_count++;
        duration = x.f;
        if (s > 0) ready = f_end_[at(s - 1, mb)] + comm(s - 1);
        x.memory += x.activation;
        break;
      case OpKind::B:
        mb = x.b_count++;
        duration = x.b;
        if (s + 1 < stages_) ready = b_end_[at(s + 1, mb)] + comm(s);
        x.memory -= x.activation - x.w_activation;
        break;
      default:
        mb = x.w_count++;
        duration = x.w;
        x.memory -= x.w_activation;
        break;
    }
    const bool first = out_.order[static_cast<std::size_t>(s)].empty();
    const SimTime start = first ? ready : std::max(x.end, ready);
    if (first) x.first_start = start;
    x.idle += start - (first ? start : x.end);
    x.end = start + duration;
    if (kind == OpKind::F) f_end_[at(s, mb)] = x.end;
    if (kind == OpKind::B) b_end_[at(s, mb)] = x.end;
    out_.order[static_cast<std::size_t>(s)].push_back({kind, s, mb});
  }

  // Round 0: micro-batch 0's forward everywhere, then on each device as many more forwards as fit
  // before micro-batch 0's gradient comes back, each device at least one fewer than the one
  // before it; then micro-batch 0's B from the last stage down.
  bool warm_up() {
    for (int s = 0; s < stages_; ++s) put(s, OpKind::F);
    std::vector<int> extra(static_cast<std::size_t>(stages_), 0);
    SimTime back = f_end_[at(stages_ - 1, 0)] + st(stages_ - 1).b;  // the last stage's B ends
    for (int s = stages_ - 2; s >= 0; --s) {
      Stage& x = st(s);
      Bytes memory = x.memory;
      SimTime busy_until = x.end;
      int& n = extra[static_cast<std::size_t>(s)];
      while (x.f_count + n < m_ && memory + x.activation <= x.limit) {
        const bool late =
            choices_.allow_bubble_before_first_b ? busy_until + x.f > back + comm(s) : busy_until >= back + comm(s);
        if (late) break;
        memory += x.activation;
        busy_until += x.f;
        ++n;
      }
      back = std::max(busy_until, back + comm(s)) + x.b;
    }
    const std::vector<int> reference = staircase(extra, WarmUpStaircase::Reference);
    if (choices_.staircase != WarmUpStaircase::Reference) {
      extra = staircase(extra, choices_.staircase);
      if (extra == reference) return false;  // the same as the reference's pass, already a candidate
    } else {
      extra = reference;
    }
    for (int s = 0; s < stages_; ++s) {
      for (int k = 0; k < extra[static_cast<std::size_t>(s)]; ++k) put(s, OpKind::F);
    }
    for (int s = stages_ - 1; s >= 0; --s) put(s, OpKind::B);
    return true;
  }

  // The warm-up forwards each device keeps of those that fit (`extra`, beyond micro-batch 0's): at
  // most one fewer than the device before, except (as the reference has it) for a device that
  // covers every micro-batch, and (our repair) only while the device before covers them all too;
  // Strict has no exemption. f_count is 1 on every device here.
  [[nodiscard]] std::vector<int> staircase(std::vector<int> extra, WarmUpStaircase rule) const {
    for (std::size_t s = 1; s < extra.size(); ++s) {
      const bool exempt = 1 + extra[s] >= m_ && 1 + extra[s - 1] >= m_;
      if (exempt && rule != WarmUpStaircase::Strict) continue;
      extra[s] = std::min(extra[s], std::max(extra[s - 1] - 1, 0));
    }
    return extra;
  }

  // Whether stage s, which leads its successor by two forwards or more, should skip this round's
  // forward: its successor is busy long enough that the forward is not needed yet.
  bool skips_forward(int s) {
    Stage& x = st(s);
    Stage& next = st(s + 1);
    const SimTime next_needs = next.end + next.f + next.b + comm(s);
    if (x.end >= next_needs) return true;
    Bytes memory = x.memory + x.activation;
    SimTime w_time = 0;
    for (int k = x.w_count; memory > x.limit && k < x.b_count; ++k) {
      w_time += x.w;
      memory -= x.w_activation;
    }
    if (x.end + x.f + w_time <= next_needs) return false;
    return next_needs - x.end <= worst_idle() - x.idle;
  }

  // W ops into the gap before an op whose input arrives at `ready`: every W that ends by then, and
  // one more that overruns it unless the gap is within the worst device's idle time and the pass
  // chose not to fill such gaps.
  void fill_gap(int s, SimTime ready) {
    Stage& x = st(s);
    while (x.w_count < x.b_count && x.end + x.w <= ready) put(s, OpKind::W);
    if (x.w_count < x.b_count && x.end < ready) {
      const bool within_worst = ready - x.end <= worst_idle() - x.idle;
      if (!within_worst || choices_.fill_gap_when_within_worst) put(s, OpKind::W);
    }
  }

  bool steady_round(int round) {
    std::vector<int> forward(static_cast<std::size_t>(stages_), 0);
    for (int s = 0; s < stages_; ++s) {
      if (st(s).f_count >= m_) continue;
      const bool ahead = s + 1 < stages_ && st(s).f_count >= st(s + 1).f_count + 2;
      forward[static_cast<std::size_t>(s)] = choices_.skip_forward_when_ahead && ahead && skips_forward(s) ? 0 : 1;
    }
    // A device forwards only when its successor does, so it never falls behind it.
    for (int s = stages_ - 2; s >= 0; --s) {
      forward[static_cast<std::size_t>(s)] =
          std::min(forward[static_cast<std::size_t>(s)], forward[static_cast<std::size_t>(s) + 1]);
    }
    for (int s = 0; s < stages_; ++s) {
      if (forward[static_cast<std::size_t>(s)] == 0) continue;
      Stage& x = st(s);
      while (!fits_forward(s)) {
        if (x.w_count >= x.b_count) return false;  // memory full of activations no W frees
        put(s, OpKind::W);
      }
      if (s > 0) fill_gap(s, f_end_[at(s - 1, x.f_count)] + comm(s - 1));
      put(s, OpKind::F);
    }
    for (int s = stages_ - 1; s >= 0; --s) {
      Stage& x = st(s);
      if (s + 1 < stages_) fill_gap(s, b_end_[at(s + 1, round)] + comm(s));
      if (s == 0 && x.f_count == m_) {
        while (x.w_count < x.b_count) put(s, OpKind::W);
      }
      put(s, OpKind::B);
    }
    return true;
  }

  PaperGreedyChoices choices_;
  int stages_;
  int m_;
  TransferRule transfer_;  // comm()
  std::vector<Stage> stage_;
  std::vector<SimTime> f_end_, b_end_;  // stage major: (stage, micro-batch)
  Schedule out_;
};

}  // namespace

std::optional<GreedySchedule> paper_greedy_zero_bubble(const GreedyProblem& problem,
                                                       const PaperGreedyChoices& choices) {
  const Schedule& shape = problem.shape;
  if (shape.stages != shape.devices) return std::nullopt;
  for (int s = 0; s < shape.stages; ++s) {
    if (shape.placement[static_cast<std::size_t>(s)] != s) return std::nullopt;
  }
  return PaperPass(problem, choices).run();
}

}  // namespace pipeplan
