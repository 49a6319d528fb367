#include "model/problem.hpp"

namespace pipeplan {

std::string_view problem_kind_name(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::Header:
      return "header";
    case ProblemKind::OutOfRange:
      return "out-of-range";
    case ProblemKind::WrongDevice:
      return "wrong-device";
    case ProblemKind::Missing:
      return "missing";
    case ProblemKind::Repeated:
      return "repeated";
    case ProblemKind::MixedBackward:
      return "mixed-backward";
    case ProblemKind::Misordered:
      return "misordered";
    case ProblemKind::Deadlock:
      return "deadlock";
    case ProblemKind::OverMemory:
      return "over-memory";
    case ProblemKind::Unmatched:
      return "unmatched";
  }
  return "unknown";
}

}  // namespace pipeplan
