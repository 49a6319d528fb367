#pragma once
// The memory a command may use, and the refusal of work estimated above it before the work
// starts (issue 31, item 8): a request under the op limit could still need more memory than
// the machine has, and ended after minutes in a bare "out of memory" that named no flag.
#include <CLI/CLI.hpp>

#include <string>

#include "io/generate_request.hpp"
#include "io/run_flags.hpp"
#include "model/units.hpp"

namespace pipeplan::cli {

/// Registers --max-memory SIZE on `sub`: work estimated above it is refused (default: what the
/// machine allows, memory_budget()).
void add_max_memory_option(CLI::App& sub);

struct MemoryBudget {
  Bytes bytes = 0;
  std::string source;  ///< "--max-memory", "the machine's memory", "ulimit -v", "the cgroup's memory.max"
};

/// --max-memory when given; otherwise the least of the machine's physical memory, the cgroup's
/// memory.max (cgroup v2) and the address-space and data limits (ulimit -v, -d).
[[nodiscard]] MemoryBudget memory_budget();

/// Throws Error (exit 1) when `estimate` bytes exceed --max-memory, or with what the program
/// itself takes (64 MiB) the machine's limit: "WHAT needs about N of memory, more than the M that SOURCE allows: LARGE
/// make it large (or --max-memory SIZE ...)". `large` names the flags or file behind the size.
void check_memory(Bytes estimate, const std::string& what, const std::string& large);

/// What generating with `generator` for `flags` is estimated to hold (generation_bytes, with the
/// JSON text when `as_text`), and "--stages P x --chunks V x --microbatches M (up to N ops)".
struct WorkEstimate {
  Bytes bytes = 0;
  std::string large;
  long long ops = 0;  ///< the ops behind it
};
[[nodiscard]] WorkEstimate generation_estimate(const Generator& generator, const RequestFlags& flags,
                                               const SimOptions& objective, bool as_text);

/// What timing `schedule` under `options` and `comm` holds (timing_bytes), and what makes it
/// large: `source`'s ops ("s.json's 65536000 ops") and --iterations K when K > 1.
[[nodiscard]] WorkEstimate timing_estimate(const Schedule& schedule, const SimOptions& options, const CommFlags& comm,
                                           const std::string& source);

/// The shortest entry of a schedule's JSON: {"kind":"F","stage":0,"microbatch":0} and a comma.
inline constexpr Bytes kShortestJsonEntry = 38;

/// Refuses reading the file at `path` when its text and the op lists of as many entries as
/// `shortest_entry` bytes each allow (and `written_per_entry` bytes of text written whole for
/// each) exceed the budget. Standard input, a pipe: not known, not checked.
void check_input_memory(const std::string& path, Bytes shortest_entry, Bytes written_per_entry = 0);

/// read_lowered_file after check_input_memory, while the progress line says so.
[[nodiscard]] LoweredSchedule read_schedule_input(const std::string& path);

/// simulate_under after its timing_estimate passed check_memory, while the progress line says so.
[[nodiscard]] LoweredRun time_checked(const LoweredSchedule& file, const CostModel& costs, const SimOptions& options,
                                      const CommFlags& comm, const std::string& what);

}  // namespace pipeplan::cli
