#include "validate/validator.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/lowering_problems.hpp"
#include "model/size_string.hpp"
#include "model/structure.hpp"
#include "sim/simulator.hpp"
#include "validate/deadlock_text.hpp"

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

// The simulator found the cycle (wait_cycle): a device waiting on itself is a misordered op,
// reported already, and only real cycles are named, wherever they are.
// The problem names `device`: the cycle's first under overlap, the first stuck device under
// communication (as the reports have always said).
void cycle_problem(const SimResult& r, int device, std::vector<Problem>& out) {
  if (r.deadlock_cycle.empty()) return;
  out.push_back(
      {ProblemKind::Deadlock, device, "deadlock: devices wait in a cycle: " + describe_cycle(r.deadlock_cycle)});
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
                   fmt::format("deadlock: device {} is stuck at {}, waiting for {}", b.device, position(b), waits)});
  }
  if (!r.deadlock_cycle.empty()) cycle_problem(r, r.deadlock_cycle.front(), out);
}

void memory_problems(const SimResult& r, Bytes limit, std::vector<Problem>& out) {
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const DeviceTimeline& t = r.devices[d];
    if (t.peak_memory <= limit) continue;
    auto first =
        std::find_if(t.memory.begin(), t.memory.end(), [limit](const MemoryPoint& p) { return p.bytes > limit; });
    out.push_back({ProblemKind::OverMemory, static_cast<int>(d),
                   fmt::format("device {} goes above the memory limit of {} at {:.3f} ms; its peak of {} "
                               "at {:.3f} ms is {} over",
                               d, format_size(limit), ns_to_ms(first->time), format_size(t.peak_memory),
                               ns_to_ms(t.peak_time), format_size(t.peak_memory - limit))});
  }
}

}  // namespace

std::vector<Problem> validate(const Schedule& schedule, const CostModel& costs, const ValidateOptions& options) {
  std::vector<Problem> problems = find_structure_problems(schedule);
  if (!allows_timing(problems)) return problems;
  SimResult result = simulate(schedule, costs);
  if (result.deadlocked()) deadlock_problems(schedule, result, problems);
  if (options.memory_limit) memory_problems(result, *options.memory_limit, problems);
  return problems;
}

std::vector<Problem> validate_lowered(const LoweredSchedule& file, const CostModel& costs, const CommRun& how,
                                      const ValidateOptions& options) {
  std::vector<Problem> problems = validate(file.schedule, costs, options);
  if (!problems.empty() || how.mode == CommMode::Overlap) return problems;
  const CommMode mode = how.mode;
  const LoweredSchedule lowered = lowering_to_run(file, how.policy, costs, mode);
  problems = lowering_problems(lowered);
  if (!problems.empty()) return problems;
  const CommSimResult run = simulate_with_comm(lowered, costs, mode);
  for (const StuckDevice& stuck : run.stuck) {
    problems.push_back({ProblemKind::Deadlock, stuck.device,
                        "deadlock under " + std::string(comm_mode_name(mode)) + " communication: " + describe(stuck)});
  }
  if (!run.stuck.empty()) cycle_problem(run.result, run.stuck.front().device, problems);
  return problems;
}

}  // namespace pipeplan
