#include "sim/lower_bound.hpp"

#include <algorithm>
#include <vector>

#include "sim/transfer_rule.hpp"

namespace pipeplan {

SimTime step_lower_bound(const Schedule& s, const CostModel& costs, OptimizerMode mode) {
  check_dimensions(costs, s.stages, s.devices);
  const TransferRule transfer(costs);
  const auto devices = static_cast<std::size_t>(s.devices);
  std::vector<SimTime> work(devices, 0);          // every op of the device, one iteration
  std::vector<SimTime> first_input(devices, -1);  // when its first stage's input can arrive at the earliest
  SimTime forward_chain = 0;                      // F through stages 0 .. s-1, with transfers
  SimTime backward_chain = 0;
  for (int stage = 0; stage < s.stages; ++stage) {
    const StageCost& c = costs.stages[static_cast<std::size_t>(stage)];
    const auto d = static_cast<std::size_t>(s.placement[static_cast<std::size_t>(stage)]);
    // The simulator rounds a fused BW once and a split B and W each: take the smaller.
    const SimTime backward = std::min(ms_to_ns(c.b_ms) + ms_to_ns(c.w_ms), ms_to_ns(c.b_ms + c.w_ms));
    work[d] += s.microbatches * (ms_to_ns(c.f_ms) + backward);
    if (first_input[d] < 0) first_input[d] = forward_chain;
    // Micro-batch 0's activation crosses boundary `stage` on the way up and its gradient on the
    // way back, each taking that boundary's own time (a slow link counts once each way).
    const SimTime crossing =
        stage + 1 < s.stages
            ? transfer.delay(static_cast<int>(d), s.placement[static_cast<std::size_t>(stage) + 1], stage)
            : 0;
    forward_chain += ms_to_ns(c.f_ms) + crossing;
    backward_chain += ms_to_ns(c.b_ms) + crossing;
  }
  std::vector<SimTime> optimizer;
  for (const DeviceCost& d : costs.devices) optimizer.push_back(ms_to_ns(d.optimizer_ms));

  // An FB op may cost less than its forward and backward apart (f_and_b_ms). Each of a device's
  // forwards can be overlapped once, so its work can shrink by at most that many times the best
  // saving; and an overlapped forward may finish sooner than alone, so the bounds that follow a
  // micro-batch through the stages no longer hold and are left out.
  const bool overlaps = std::any_of(costs.stages.begin(), costs.stages.end(),
                                    [](const StageCost& c) { return c.f_and_b_ms.has_value(); });
  if (overlaps) {
    for (std::size_t d = 0; d < devices; ++d) {
      SimTime longest_backward = 0, saving = 0;
      int forwards = 0;
      for (int stage = 0; stage < s.stages; ++stage) {
        if (s.placement[static_cast<std::size_t>(stage)] != static_cast<int>(d)) continue;
        const StageCost& c = costs.stages[static_cast<std::size_t>(stage)];
        longest_backward = std::max(longest_backward, ms_to_ns(c.b_ms + c.w_ms));
        forwards += s.microbatches;
      }
      for (int stage = 0; stage < s.stages; ++stage) {
        const StageCost& c = costs.stages[static_cast<std::size_t>(stage)];
        if (s.placement[static_cast<std::size_t>(stage)] != static_cast<int>(d) || !c.f_and_b_ms) continue;
        saving = std::max(saving, ms_to_ns(c.f_ms) + longest_backward - ms_to_ns(*c.f_and_b_ms));
      }
      // In double: the product may pass SimTime where the work itself fits (run_limits.hpp).
      const double cut = static_cast<double>(forwards) * static_cast<double>(saving);
      work[d] = cut >= static_cast<double>(work[d]) ? 0 : work[d] - static_cast<SimTime>(cut);
    }
  }

  SimTime bound = 0;
  if (mode == OptimizerMode::PostValidation || overlaps) {
    for (std::size_t d = 0; d < devices; ++d) bound = std::max(bound, work[d] + optimizer[d]);
    return bound;
  }
  // Sync: an iteration starts on the device of stage 0 when its optimizer step ends; device d
  // can start no sooner than its own step ends nor before the first input reaches it, and the
  // barrier waits for its last op.
  const SimTime first_step = optimizer[static_cast<std::size_t>(s.placement.front())];
  for (std::size_t d = 0; d < devices; ++d) {
    SimTime start = first_input[d] < 0 ? optimizer[d] : std::max(optimizer[d], first_step + first_input[d]);
    bound = std::max(bound, start + work[d]);
  }
  // One micro-batch's round trip: every F, every B back, then stage 0's W (or its fused BW).
  const StageCost& first = costs.stages.front();
  const SimTime first_backward =
      std::min(ms_to_ns(first.b_ms) + ms_to_ns(first.w_ms), ms_to_ns(first.b_ms + first.w_ms));
  return std::max(bound, first_step + forward_chain + backward_chain - ms_to_ns(first.b_ms) + first_backward);
}

}  // namespace pipeplan
