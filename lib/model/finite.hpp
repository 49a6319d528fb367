#pragma once
// The one check every floating-point value read passes, from a flag or a file's field (issue 31):
// NaN fails every comparison, so a range check written `v < least || v > most` let it through
// (--gemm-efficiency nan wrote "f_ms": null), and infinity passed any check without an upper end.
#include <cmath>

namespace pipeplan {

/// True for a finite `value` from `least` to `most`, both included; false for NaN and infinity.
[[nodiscard]] inline bool finite_within(double value, double least, double most) {
  return std::isfinite(value) && value >= least && value <= most;
}

}  // namespace pipeplan
