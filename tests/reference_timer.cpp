#include "reference_timer.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace pipeplan::test {

namespace {

enum Output { kForward, kGradient, kSplitB };   // what an op hands on: docs/model.md, "Dependencies"
using Key = std::tuple<int, Output, int, int>;  // iteration, output, stage, micro-batch

// Output, stage and micro-batch, and the stage of the op that needs it (which, with the
// producer's stage, names the boundary a transfer between them crosses).
using Input = std::tuple<Output, int, int, int>;

// The inputs of the non-compound op `k`(stage, m): F needs the previous stage's F; B and BW need
// their own F and the next stage's B or BW; W needs its B.
std::vector<Input> inputs(OpKind k, int stage, int m, int stages) {
  std::vector<Input> out;
  if (k == OpKind::F && stage > 0) out.emplace_back(kForward, stage - 1, m, stage);
  if (k == OpKind::W) out.emplace_back(kSplitB, stage, m, stage);
  if (k == OpKind::B || k == OpKind::BW) {
    out.emplace_back(kForward, stage, m, stage);
    if (stage + 1 < stages) out.emplace_back(kGradient, stage + 1, m, stage);
  }
  return out;
}

}  // namespace

ReferenceRun reference_times(const Schedule& s, const CostModel& c, int iterations, OptimizerMode mode) {
  const auto P = static_cast<std::size_t>(s.devices);
  auto cost = [&c](int stage) { return c.stages[static_cast<std::size_t>(stage)]; };
  std::map<Key, std::pair<SimTime, int>> done;  // output -> (end, device that produced it)
  std::vector<SimTime> free(P, 0);
  std::vector<int> iteration(P, 0), next(P, 0);
  ReferenceRun run{std::vector<std::vector<ReferenceOp>>(P), {}};
  for (bool moved = true; moved;) {
    moved = false;
    for (std::size_t d = 0; d < P; ++d) {
      const auto& list = s.order[d];
      if (iteration[d] == iterations || next[d] == static_cast<int>(list.size())) continue;
      const Op& op = list[static_cast<std::size_t>(next[d])];
      const bool fb = op.kind == OpKind::FB;
      auto needs = inputs(fb ? OpKind::F : op.kind, op.stage, op.microbatch, s.stages);
      if (fb) {
        for (auto in : inputs(OpKind::BW, op.overlap_stage, op.overlap_microbatch, s.stages)) needs.push_back(in);
      }
      SimTime start = free[d];
      bool ready = true;
      for (auto [out, stage, m, consumer] : needs) {
        auto it = done.find({iteration[d], out, stage, m});
        if (it == done.end()) {
          ready = false;
          break;
        }
        // Between two adjacent stages on two devices: the boundary between them, the lower one.
        const bool local = it->second.second == static_cast<int>(d);
        const SimTime transfer = local ? 0 : ms_to_ns(c.transfer_ms(std::min(stage, consumer)));
        start = std::max(start, it->second.first + transfer);
      }
      if (!ready) continue;
      const StageCost& sc = cost(op.stage);
      const StageCost& back = cost(fb ? op.overlap_stage : op.stage);  // t_BW = t_B + t_W
      SimTime length = op.kind == OpKind::F    ? ms_to_ns(sc.f_ms)
                       : op.kind == OpKind::B  ? ms_to_ns(sc.b_ms)
                       : op.kind == OpKind::W  ? ms_to_ns(sc.w_ms)
                       : op.kind == OpKind::BW ? ms_to_ns(back.b_ms + back.w_ms)
                       : sc.f_and_b_ms         ? ms_to_ns(*sc.f_and_b_ms)  // an FB with its own time
                                               : ms_to_ns(sc.f_ms) + ms_to_ns(back.b_ms + back.w_ms);
      const SimTime end = start + length;
      const int i = iteration[d], me = static_cast<int>(d);
      if (op.kind == OpKind::F || fb) done[{i, kForward, op.stage, op.microbatch}] = {end, me};
      if (op.kind == OpKind::B) done[{i, kSplitB, op.stage, op.microbatch}] = {end, me};
      if (op.kind == OpKind::B || op.kind == OpKind::BW) done[{i, kGradient, op.stage, op.microbatch}] = {end, me};
      if (fb) done[{i, kGradient, op.overlap_stage, op.overlap_microbatch}] = {end, me};
      run.ops[d].push_back({i, op, start, end});
      free[d] = end;
      ++next[d];
      moved = true;
    }
    // Optimizer steps: post-validation, each device at its own end; sync, all at the last end.
    auto at_end = [&](std::size_t d) {
      return iteration[d] < iterations && next[d] == static_cast<int>(s.order[d].size());
    };
    for (std::size_t d = 0; d < P; ++d) {
      if (!at_end(d)) continue;
      if (mode == OptimizerMode::Sync) {
        bool all = true;
        for (std::size_t e = 0; e < P; ++e) all = all && at_end(e);
        if (!all) break;
        const SimTime barrier = *std::max_element(free.begin(), free.end());
        for (std::size_t e = 0; e < P; ++e) {
          free[e] = barrier + ms_to_ns(c.devices[e].optimizer_ms);
          ++iteration[e];
          next[e] = 0;
        }
        moved = true;
        break;
      }
      free[d] += ms_to_ns(c.devices[d].optimizer_ms);
      ++iteration[d];
      next[d] = 0;
      moved = true;
    }
  }
  for (std::size_t d = 0; d < P; ++d) {
    const bool finished = iteration[d] == iterations || next[d] == static_cast<int>(s.order[d].size());
    run.stuck_at.push_back(finished ? -1 : next[d]);
  }
  return run;
}

}  // namespace pipeplan::test
