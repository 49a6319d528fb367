#pragma once
// Small helpers the unit tests share.
#include <string>

#include "costs/cost_model.hpp"
#include "model/lowered.hpp"
#include "model/schedule.hpp"
#include "schedules/generator.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan::test {

/// A request for P devices, M micro-batches and V chunks (0: the generator's default).
[[nodiscard]] GenerateRequest request(int devices, int microbatches, int chunks = 0);

/// The named generator's schedule for P devices and M micro-batches, with its default chunks;
/// the cost-aware generators get F = B = W = 1 ms on every stage and no activation memory.
[[nodiscard]] Schedule generated(const std::string& name, int devices, int microbatches);

/// Every stage with the given F, B, W milliseconds and activation bytes; no transfer time.
[[nodiscard]] CostModel uniform(const Schedule& s, double f, double b, double w, Bytes a_f = 0, Bytes a_w = 0);

/// The two-stage scenario timed by hand in simulator_test.cpp: stage 0 F=1 B=2 W=1 ms with
/// a_F=100, a_W=40 bytes; stage 1 F=2 B=3 W=1 with 200, 50; transfer 0.5 ms; the given devices.
[[nodiscard]] CostModel two_stage_costs(DeviceCost device0 = {}, DeviceCost device1 = {});

/// A device's lowered list as text: compute ops by describe(), sends and receives by name, a
/// '+' before one batched with the entry before it.
[[nodiscard]] std::string lowered_listing(const LoweredSchedule& l, std::size_t device);

/// CHECKs that two lowered schedules hold the same compute schedule, policy and posts.
void check_same_lowering(const LoweredSchedule& a, const LoweredSchedule& b);

/// Every op of a run, ordered by start time, then device.
[[nodiscard]] std::vector<OpTiming> all_ops(const SimResult& result);

/// The message of the Error that `action` throws, or "" when it throws none.
template <class Action>
std::string error_of(Action&& action) {
  try {
    action();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace pipeplan::test
