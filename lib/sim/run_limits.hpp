#pragma once
// What a run may be before it is timed (issue 31, item 3): iterations x ops within kMaxOps, and
// every time it sums within 64-bit nanoseconds. Each op's cost is capped (kMaxMs), but a
// makespan is a sum of them: 1000 ops of 5e9 ms overflow SimTime and print a negative bubble.
// Both simulators ask this first; the CLI asks it too, to name its flags instead.
#include <optional>
#include <string>

#include "costs/cost_model.hpp"
#include "model/error.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// The longest run timed: 2^62 ns (about 146 years), so that the sum of two times, a device's
/// busy total and a step over several iterations all stay within SimTime.
inline constexpr SimTime kMaxRunNs = SimTime{1} << 62;

/// The most memory a device may hold in a run: 2^62 bytes (4 EiB), so that a peak, a limit's
/// margin and a sum of two devices stay within Bytes; a sum past it once wrapped around and
/// showed a peak smaller than the truth.
inline constexpr Bytes kMaxRunBytes = Bytes{1} << 62;

/// An upper bound on what device `device` holds at any time: its static memory plus every
/// activation its ops allocate in one iteration (each iteration frees what it allocates).
/// Exact, but the largest Bytes where the sum would pass it.
[[nodiscard]] Bytes memory_bound_bytes(const Schedule& schedule, const CostModel& costs, std::size_t device);

/// An upper bound on when any run of `schedule` ends, in nanoseconds: every op, every transfer
/// between two devices (each at the longest boundary's time) and every device's optimizer step,
/// one after another, times the iterations. Neither simulator leaves every device and link idle
/// while something is left to run, so no run (overlapped or with posts) ends later. Exact, but
/// the largest SimTime where the sum would pass it.
[[nodiscard]] SimTime run_length_bound_ns(const Schedule& schedule, const CostModel& costs, int iterations);

enum class RunLimit : unsigned char { Iterations, Length, Memory };

struct RunLimitProblem {
  RunLimit limit = RunLimit::Iterations;
  std::string message;  ///< "iterations: expected ...", "the run could last ...", "device 0 could hold ..."
};

/// What simulate() and simulate_with_comm() throw for a RunLimitProblem, so that a caller that
/// knows where the iterations and the times came from (the CLI's flags) can say so.
class RunLimitError : public Error {
 public:
  explicit RunLimitError(const RunLimitProblem& problem) : Error(problem.message), limit(problem.limit) {}
  RunLimit limit;
};

/// The first limit `schedule` under `costs` and `options` passes, or none. Precondition: the
/// costs fit the schedule (check_dimensions, check_costs).
[[nodiscard]] std::optional<RunLimitProblem> run_limit_problem(const Schedule& schedule, const CostModel& costs,
                                                               const SimOptions& options);

}  // namespace pipeplan
