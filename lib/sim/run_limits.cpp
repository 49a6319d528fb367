#include "sim/run_limits.hpp"

#include <cstdint>
#include <cstdio>
#include <limits>

#include "model/dependencies.hpp"
#include "model/limits.hpp"
#include "sim/op_costs.hpp"
#include "sim/transfer_rule.hpp"

namespace pipeplan {

namespace {

// A sum of non-negative values, exact where it fits (it stops at the largest value instead of
// wrapping around; the limits, far below it, compare the exact one) and in double for messages.
struct Sum {
  std::int64_t exact = 0;
  double shown = 0;
  void add(std::int64_t value) {
    if (__builtin_add_overflow(exact, value, &exact)) exact = std::numeric_limits<std::int64_t>::max();
    shown += static_cast<double>(value);
  }
};

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

Sum memory_sum(const Schedule& schedule, const CostModel& costs, std::size_t device) {
  const std::vector<sim::StageTimes> times = sim::stage_times(costs);
  Sum held;
  held.add(costs.devices[device].static_memory_bytes);
  for (const Op& op : schedule.order[device]) held.add(sim::memory_effect(times, op).at_start);
  return held;
}

Sum length_sum(const Schedule& schedule, const CostModel& costs, int iterations) {
  const std::vector<sim::StageTimes> times = sim::stage_times(costs);
  const SimTime crossing = TransferRule(costs).longest();
  Sum one;  // one iteration
  for (std::size_t d = 0; d < schedule.order.size(); ++d) {
    for (const Op& op : schedule.order[d]) {
      one.add(sim::duration(times, op));
      for (const Dependency& dep : dependencies_of(op, schedule.stages)) {
        if (schedule.placement[static_cast<std::size_t>(dep.stage)] != static_cast<int>(d)) one.add(crossing);
      }
    }
  }
  for (const SimTime step : sim::optimizer_times(costs)) one.add(step);
  Sum all;
  if (__builtin_mul_overflow(one.exact, static_cast<std::int64_t>(iterations), &all.exact)) {
    all.exact = std::numeric_limits<std::int64_t>::max();
  }
  all.shown = one.shown * static_cast<double>(iterations);
  return all;
}

}  // namespace

Bytes memory_bound_bytes(const Schedule& schedule, const CostModel& costs, std::size_t device) {
  return memory_sum(schedule, costs, device).exact;
}

SimTime run_length_bound_ns(const Schedule& schedule, const CostModel& costs, int iterations) {
  return length_sum(schedule, costs, iterations).exact;
}

std::optional<RunLimitProblem> run_limit_problem(const Schedule& schedule, const CostModel& costs,
                                                 const SimOptions& options) {
  const double ops = static_cast<double>(schedule.op_count());
  if (options.iterations < 1 || static_cast<double>(options.iterations) * ops > static_cast<double>(kMaxOps)) {
    return RunLimitProblem{RunLimit::Iterations, "iterations: expected 1 or more, with iterations x ops at most " +
                                                     std::to_string(kMaxOps) + " (the schedule has " +
                                                     std::to_string(schedule.op_count()) + " ops), got " +
                                                     std::to_string(options.iterations)};
  }
  const Sum length = length_sum(schedule, costs, options.iterations);
  if (length.exact > kMaxRunNs) {
    return RunLimitProblem{RunLimit::Length, "the run could last up to " + number_text(length.shown / 1e6) +
                                                 " ms (every op, transfer and optimizer step of " +
                                                 std::to_string(options.iterations) +
                                                 (options.iterations == 1 ? " iteration" : " iterations") +
                                                 " one after another), more than the " +
                                                 number_text(static_cast<double>(kMaxRunNs) / 1e6) +
                                                 " ms (about 146 years) a run is timed to in 64-bit nanoseconds"};
  }
  for (std::size_t d = 0; d < schedule.order.size(); ++d) {
    const Sum held = memory_sum(schedule, costs, d);
    if (held.exact > kMaxRunBytes) {
      return RunLimitProblem{RunLimit::Memory, "device " + std::to_string(d) + " could hold up to " +
                                                   number_text(held.shown) +
                                                   " bytes (its static memory and every activation of an iteration at "
                                                   "once), more than the 2^62 bytes (4 EiB) a run counts"};
    }
  }
  return std::nullopt;
}

}  // namespace pipeplan
