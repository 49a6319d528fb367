#include "validate/validator.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lower/lowering.hpp"
#include "model/size_string.hpp"
#include "model/structure.hpp"
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

// Follows each blocked device to the device it waits on until one repeats: that is the cycle.
std::vector<int> waiting_cycle(const Schedule& s, const SimResult& r) {
  std::vector<int> path;
  const BlockedDevice* at = &r.deadlock.front();
  while (at != nullptr && !at->waiting_for.empty()) {
    auto seen = std::find(path.begin(), path.end(), at->device);
    if (seen != path.end()) {
      std::vector<int> cycle(seen, path.end());
      cycle.push_back(at->device);
      return cycle;
    }
    path.push_back(at->device);
    at = blocked_device(r, s.placement[static_cast<std::size_t>(at->waiting_for.front().stage)]);
  }
  return {};
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
  // A device waiting on itself is a misordered op, reported already; name only real cycles.
  std::vector<int> cycle = waiting_cycle(s, r);
  if (cycle.size() > 2) {
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
