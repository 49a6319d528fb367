#pragma once
// The state of one pass of the authors' ZB-V heuristic (schedules/zbv_paper_greedy.hpp) and its
// two primitives: put an op where its device and input allow, and fill a gap with W ops. The
// rules that decide what to put live in zbv_paper_greedy.cpp, the only file that includes this.
#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "schedules/zbv_paper_greedy.hpp"
#include "sim/transfer_rule.hpp"

namespace pipeplan::zbv_paper {

constexpr SimTime kUnplaced = -1;
constexpr std::size_t kFirst = 0;   // chunk 0: stage r on device r
constexpr std::size_t kSecond = 1;  // chunk 1: stage 2P-1-r on device r

class VeePass {
 public:
  VeePass(const GreedyProblem& p, const ZbvPaperChoices& choices, const std::vector<SimTime>& allowed)
      : choices_(choices),
        p_(p.shape.devices),
        m_(p.shape.microbatches),
        transfer_(p.costs),
        device_(static_cast<std::size_t>(p_)),
        allowed_(allowed) {
    const std::size_t ends = static_cast<std::size_t>(p_) * static_cast<std::size_t>(m_);
    for (auto& chunk : f_end_) chunk.assign(ends, kUnplaced);
    for (auto& chunk : b_end_) chunk.assign(ends, kUnplaced);
    for (int r = 0; r < p_; ++r) {
      Device& d = dev(r);
      for (std::size_t c : {kFirst, kSecond}) {
        const int stage = c == kFirst ? r : 2 * p_ - 1 - r;
        const StageCost& cost = p.costs.stages[static_cast<std::size_t>(stage)];
        d.chunk[c] = {stage,
                      ms_to_ns(cost.f_ms),
                      ms_to_ns(cost.b_ms),
                      ms_to_ns(cost.w_ms),
                      cost.activation_bytes,
                      cost.w_activation_bytes};
      }
      d.memory = p.costs.devices[static_cast<std::size_t>(r)].static_memory_bytes;
      d.limit = p.limit[static_cast<std::size_t>(r)];
    }
    most_allowed_ = *std::max_element(allowed_.begin(), allowed_.end());
    out_ = p.shape;
    for (auto& ops : out_.order) ops.clear();
  }

  // The pass, or nullopt where the reference would fail an assertion (memory full with no W to
  // free it, an op whose input was never placed). Fills `idle` with each device's idle time.
  std::optional<GreedySchedule> run(std::vector<SimTime>& idle) {
    warm_up();
    catch_up();
    for (int round = 0; round < 2 * m_ && ok_; ++round) {
      backwards();
      forwards();
    }
    // The repair's extra rounds (backwards()): the backwards a device had to leave for later.
    for (int round = 0; round < 2 * m_ && ok_ && backwards_left(); ++round) {
      backwards();
      forwards();
    }
    if (ok_ && backwards_left()) fail();
    for (int r = 0; r < p_; ++r) {
      while (dev(r).w_head < dev(r).pending.size()) put_w(r);
    }
    if (!ok_) return std::nullopt;
    GreedySchedule planned{std::move(out_), true, 0, 0};
    idle.clear();
    for (const Device& d : device_) {
      planned.makespan = std::max(planned.makespan, d.free_at);
      planned.longest_span = std::max(planned.longest_span, d.free_at - d.first_start);
      idle.push_back(d.idle);
    }
    return planned;
  }

 private:
  struct Chunk {
    int stage;
    SimTime f, b, w;
    Bytes activation, w_activation;
  };
  struct Device {
    std::array<Chunk, 2> chunk;
    std::array<int, 2> forwards{}, backwards{};
    std::vector<std::pair<std::size_t, int>> pending;  // W to run: (chunk, micro-batch), oldest first
    std::size_t w_head = 0;
    Bytes memory = 0, limit = 0;
    SimTime free_at = 0, first_start = 0, idle = 0;
  };

  Device& dev(int r) { return device_[static_cast<std::size_t>(r)]; }
  [[nodiscard]] const Device& dev(int r) const { return device_[static_cast<std::size_t>(r)]; }
  std::size_t at(int r, int mb) const {
    return static_cast<std::size_t>(r) * static_cast<std::size_t>(m_) + static_cast<std::size_t>(mb);
  }
  SimTime f_end(std::size_t c, int r, int mb) const { return f_end_[c][at(r, mb)]; }
  SimTime b_end(std::size_t c, int r, int mb) const { return b_end_[c][at(r, mb)]; }

  // Where the input of device r's next forward (or backward) of chunk c comes from: the end of
  // that op on the neighbouring device, or kUnplaced when it comes from r itself (the turn at
  // device P-1, the loss on device 0) and so needs no transfer.
  [[nodiscard]] bool has_input(bool forward, std::size_t c, int r) const {
    const bool flows_up = (c == kFirst) == forward;  // from device r-1 to r
    return flows_up ? r > 0 : r + 1 < p_;
  }
  // The device that input comes from.
  [[nodiscard]] int source(bool forward, std::size_t c, int r) const {
    const bool flows_up = (c == kFirst) == forward;
    return flows_up ? r - 1 : r + 1;
  }
  [[nodiscard]] SimTime input_end(bool forward, std::size_t c, int r, int mb) const {
    const int from = source(forward, c, r);
    return forward ? f_end(c, from, mb) : b_end(c, from, mb);
  }
  // The transfer that input takes: the boundary below device r's stage of chunk c for a forward
  // (from stage - 1), the one above it for a backward (from stage + 1). The authors' heuristic
  // has one communication time; with a time per boundary each input takes its own.
  [[nodiscard]] SimTime comm(bool forward, std::size_t c, int r) const {
    const int stage = device_[static_cast<std::size_t>(r)].chunk[c].stage;
    return transfer_.delay(source(forward, c, r), r, forward ? stage - 1 : stage);
  }
  // What the reference reads as the input's end where an op has none: Python's index -1, the
  // last W of the first chunk on device P-1, usually not yet placed (-1).
  [[nodiscard]] SimTime missing_input_end() const { return last_w_end_; }

  // The largest idle time any device may reach before it (the reference's max stage bubble).
  [[nodiscard]] SimTime tolerated(int r) const {
    return std::max(worst_idle_, most_allowed_ - allowed_[static_cast<std::size_t>(r)]);
  }

  // Appends device r's next op of `kind` on chunk c at the earliest moment its device and input
  // allow; a W runs the oldest pending one.
  void put(int r, OpKind kind, std::size_t c) {
    Device& d = dev(r);
    const Chunk& k = d.chunk[c];
    int mb = 0;
    SimTime duration = 0, ready = 0;
    Bytes change = 0;
    bool inside = true;  // needs an op of its own device before it (the reference's assertions)
    if (kind == OpKind::W) {
      mb = d.pending[d.w_head++].second;
      duration = k.w;
      change = -k.w_activation;
    } else {
      const bool forward = kind == OpKind::F;
      int& count = forward ? d.forwards[c] : d.backwards[c];
      if (count >= m_) return fail();
      mb = count++;
      duration = forward ? k.f : k.b;
      change = forward ? k.activation : k.w_activation - k.activation;
      if (forward && c == kSecond) inside = f_end(kFirst, r, mb) != kUnplaced;
      if (!forward && c == kSecond) inside = f_end(kSecond, r, mb) != kUnplaced;
      if (!forward && c == kFirst) inside = b_end(kSecond, r, mb) != kUnplaced;
      if (has_input(forward, c, r)) {
        const SimTime input = input_end(forward, c, r, mb);
        if (input == kUnplaced) return fail();
        ready = input + comm(forward, c, r);
      }
    }
    if (!inside || d.memory + change > d.limit) return fail();
    const SimTime start = std::max(d.free_at, ready);
    const int forwards_before = d.forwards[kFirst] - (kind == OpKind::F && c == kFirst ? 1 : 0);
    if (out_.order[static_cast<std::size_t>(r)].empty()) d.first_start = start;
    if (forwards_before > 0) {  // idle time counts once the device's first forward has run
      d.idle += start - d.free_at;
      worst_idle_ = std::max(worst_idle_, d.idle);
    }
    d.free_at = start + duration;
    d.memory += change;
    if (kind == OpKind::F) f_end_[c][at(r, mb)] = d.free_at;
    if (kind == OpKind::B) {
      b_end_[c][at(r, mb)] = d.free_at;
      d.pending.emplace_back(c, mb);
    }
    if (kind == OpKind::W && c == kFirst && r == p_ - 1 && mb == m_ - 1) last_w_end_ = d.free_at;
    out_.order[static_cast<std::size_t>(r)].push_back({kind, k.stage, mb});
  }
  void fail() { ok_ = false; }

  void put_w(int r) { put(r, OpKind::W, dev(r).pending[dev(r).w_head].first); }
  [[nodiscard]] bool has_w(int r) { return dev(r).w_head < dev(r).pending.size(); }
  [[nodiscard]] SimTime next_w(int r) { return dev(r).chunk[dev(r).pending[dev(r).w_head].first].w; }

  // W ops into the gap before device r's next op on chunk c: each W that ends by the time the
  // input arrives, then one more when the gap is longer than the device may idle and `fill`.
  void fill_gap(int r, bool forward, std::size_t c, bool fill) {
    const bool input = has_input(forward, c, r);
    const int mb = forward ? dev(r).forwards[c] : dev(r).backwards[c];
    if (input && mb >= m_) return fail();
    // The reference adds its one communication time to the missing input's end too; no boundary
    // is crossed there, so it takes the longest of them (the single time it would be uniform).
    const SimTime arrives =
        input ? input_end(forward, c, r, mb) + comm(forward, c, r) : missing_input_end() + transfer_.longest();
    while (input && has_w(r) && arrives >= dev(r).free_at + next_w(r)) put_w(r);
    if (has_w(r) && arrives - dev(r).free_at > tolerated(r) - dev(r).idle && fill) put_w(r);
  }

  void warm_up();
  void catch_up();
  void backwards();
  void forwards();
  // Whether device r's next backward of chunk c can be put now: its own forward (or its second
  // chunk's backward) and its input from the next stage are placed.
  [[nodiscard]] bool backward_ready(int r, std::size_t c) const {
    const Device& d = dev(r);
    const int mb = d.backwards[c];
    if (mb >= m_) return false;
    const bool inside = c == kSecond ? f_end(kSecond, r, mb) != kUnplaced : b_end(kSecond, r, mb) != kUnplaced;
    return inside && (!has_input(false, c, r) || input_end(false, c, r, mb) != kUnplaced);
  }
  // The same for device r's next forward of chunk c.
  [[nodiscard]] bool forward_ready(int r, std::size_t c) const {
    const Device& d = dev(r);
    const int mb = d.forwards[c];
    if (mb >= m_) return false;
    if (c == kSecond && f_end(kFirst, r, mb) == kUnplaced) return false;
    return !has_input(true, c, r) || input_end(true, c, r, mb) != kUnplaced;
  }
  [[nodiscard]] bool backwards_left() const {
    return std::any_of(device_.begin(), device_.end(),
                       [&](const Device& d) { return d.backwards[kFirst] < m_ || d.backwards[kSecond] < m_; });
  }

  ZbvPaperChoices choices_;
  int p_, m_;
  TransferRule transfer_;  // comm()
  std::vector<Device> device_;
  std::array<std::vector<SimTime>, 2> f_end_, b_end_;  // per chunk, (device, micro-batch)
  std::vector<SimTime> allowed_;
  SimTime most_allowed_ = 0;
  SimTime worst_idle_ = 0;
  SimTime last_w_end_ = kUnplaced;
  bool ok_ = true;
  Schedule out_;
};

}  // namespace pipeplan::zbv_paper
