#include "sim/run_limits.hpp"

#include <cstdio>

#include "model/dependencies.hpp"
#include "model/limits.hpp"
#include "sim/op_costs.hpp"
#include "sim/transfer_rule.hpp"

namespace pipeplan {

namespace {

std::string ms_text(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", ns / 1e6);
  return text;
}

}  // namespace

double run_length_bound_ns(const Schedule& schedule, const CostModel& costs, int iterations) {
  const std::vector<sim::StageTimes> times = sim::stage_times(costs);
  const double crossing = static_cast<double>(TransferRule(costs).longest());
  double one = 0.0;  // one iteration, in ns
  for (std::size_t d = 0; d < schedule.order.size(); ++d) {
    for (const Op& op : schedule.order[d]) {
      one += static_cast<double>(sim::duration(times, op));
      for (const Dependency& dep : dependencies_of(op, schedule.stages)) {
        if (schedule.placement[static_cast<std::size_t>(dep.stage)] != static_cast<int>(d)) one += crossing;
      }
    }
  }
  for (const SimTime step : sim::optimizer_times(costs)) one += static_cast<double>(step);
  return one * static_cast<double>(iterations);
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
  const double bound = run_length_bound_ns(schedule, costs, options.iterations);
  if (bound > static_cast<double>(kMaxRunNs)) {
    return RunLimitProblem{RunLimit::Length,
                           "the run could last up to " + ms_text(bound) + " ms (every op, transfer and optimizer step of " +
                               std::to_string(options.iterations) + (options.iterations == 1 ? " iteration" : " iterations") +
                               " one after another), more than the " + ms_text(static_cast<double>(kMaxRunNs)) +
                               " ms (about 146 years) a run is timed to in 64-bit nanoseconds"};
  }
  return std::nullopt;
}

}  // namespace pipeplan
