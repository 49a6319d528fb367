#pragma once
// One thing wrong with a schedule, as the validator reports it.
#include <string>
#include <string_view>

namespace pipeplan {

enum class ProblemKind : unsigned char {
  Header,         ///< counts, placement or device lists that do not agree
  OutOfRange,     ///< an op names a stage or micro-batch that does not exist
  WrongDevice,    ///< an op sits on a device that does not hold its stage
  Missing,        ///< an op the schedule needs is absent
  Repeated,       ///< an op appears more than once
  MixedBackward,  ///< a stage and micro-batch has both a fused BW and a split B or W
  Misordered,     ///< an op comes before, on its own device, an op it needs
  Deadlock,       ///< devices wait on each other forever
  OverMemory,     ///< a device holds more than the memory limit
  Unmatched,      ///< a send or receive whose partner is missing, or pairs posted in different orders
};

/// A stable lower-case name for output: "missing", "deadlock", ...
[[nodiscard]] std::string_view problem_kind_name(ProblemKind kind);

struct Problem {
  ProblemKind kind = ProblemKind::Header;
  int device = -1;  ///< the device concerned, -1 when none
  std::string message;
};

}  // namespace pipeplan
