#include "validate/validator.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lower/lowering.hpp"
#include "model/size_string.hpp"
#include "model/structure.hpp"
#include "model/wait_cycle.hpp"
#include "sim/simulator.hpp"

namespace pipeplan {

namespace {

std::string position(const BlockedDevice& b) {
  return fmt::format("order[{}][{}] {}", b.device, b.index, describe(b.head));
}

const BlockedDevice* blocked_device(const SimResult& r, int device) {
  for (const BlockedDevice& b : r.deadlock) {
    if (b.device == device) return &b;
  }
  return nullptr;
}

// The devices each blocked device waits for, and a cycle among them (wait_cycle).
std::vector<int> waiting_cycle(const Schedule& s, const SimResult& r) {
  std::vector<std::vector<int>> waits_on(static_cast<std::size_t>(s.devices));
  for (const BlockedDevice& b : r.deadlock) {
    for (const Dependency& dep : b.waiting_for) {
      waits_on[static_cast<std::size_t>(b.device)].push_back(s.placement[static_cast<std::size_t>(dep.stage)]);
    }
  }
  return wait_cycle(waits_on);
}

void deadlock_problems(const Schedule& s, const SimResult& r, std::vector<Problem>& out) {
  for (const BlockedDevice& b : r.deadlock) {
    std::string waits;
    for (const Dependency& dep : b.waiting_for) {
      int from = s.placement[static_cast<std::size_t>(dep.stage)];
      const BlockedDevice* other = blocked_device(r, from);
      waits += fmt::format("{}{} from device {}", waits.empty() ? "" : " and ", describe(dep), from);
      if (other != nullptr && other != &b) waits += fmt::format(" (itself stuck at {})", position(*other));
    }
    out.push_back({ProblemKind::Deadlock, b.device,
                   fmt::format("deadlock: device {} is stuck at {}, waiting for {}", b.device,
                               position(b), waits)});
  }
  // A device waiting on itself is a misordered op, reported already; wait_cycle names only real
  // cycles, wherever they are.
  std::vector<int> cycle = waiting_cycle(s, r);
  if (!cycle.empty()) {
    out.push_back({ProblemKind::Deadlock, cycle.front(),
                   fmt::format("deadlock: devices wait in a cycle: device {}",
                               fmt::join(cycle, " -> device "))});
  }
}

void memory_problems(const SimResult& r, Bytes limit, std::vector<Problem>& out) {
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const DeviceTimeline& t = r.devices[d];
    if (t.peak_memory <= limit) continue;
    auto first = std::find_if(t.memory.begin(), t.memory.end(),
                              [limit](const MemoryPoint& p) { return p.bytes > limit; });
    out.push_back({ProblemKind::OverMemory, static_cast<int>(d),
                   fmt::format("device {} goes above the memory limit of {} at {:.3f} ms; its peak of {} "
                               "at {:.3f} ms is {} over",
                               d, format_size(limit), ns_to_ms(first->time), format_size(t.peak_memory),
                               ns_to_ms(t.peak_time), format_size(t.peak_memory - limit))});
  }
}

}  // namespace

std::vector<Problem> validate(const Schedule& schedule, const CostModel& costs,
                              const ValidateOptions& options) {
  std::vector<Problem> problems = find_structure_problems(schedule);
  if (!allows_timing(problems)) return problems;
  SimResult result = simulate(schedule, costs);
  if (result.deadlocked()) deadlock_problems(schedule, result, problems);
  if (options.memory_limit) memory_problems(result, *options.memory_limit, problems);
  return problems;
}

std::vector<Problem> validate_lowered(const LoweredSchedule& lowered, const CostModel& costs, CommMode mode,
                                      const ValidateOptions& options) {
  std::vector<Problem> problems = validate(lowered.schedule, costs, options);
  if (!problems.empty() || mode == CommMode::Overlap) return problems;
  problems = lowering_problems(lowered);
  if (!problems.empty()) return problems;
  const CommSimResult run = simulate_with_comm(lowered, costs, mode);
  for (std::size_t i = 0; i < run.stuck.size(); ++i) {
    problems.push_back({ProblemKind::Deadlock, run.result.deadlock[i].device,
                        "deadlock under " + std::string(comm_mode_name(mode)) + " communication: " + run.stuck[i]});
  }
  if (!run.cycle.empty()) {
    problems.push_back({ProblemKind::Deadlock, run.result.deadlock.front().device,
                        "deadlock: devices wait in a cycle: " + run.cycle});
  }
  return problems;
}

}  // namespace pipeplan
