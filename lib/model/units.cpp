#include "model/units.hpp"

#include <cmath>
#include <string>

#include "model/error.hpp"

namespace pipeplan {

SimTime ms_to_ns(double ms) {
  if (!std::isfinite(ms) || ms < 0.0 || ms > kMaxMs) {
    throw Error("time " + std::to_string(ms) + " ms is out of range: expected a finite number from 0 to 1e10 ms");
  }
  return static_cast<SimTime>(std::llround(ms * 1e6));
}

double ns_to_ms(SimTime ns) {
  return static_cast<double>(ns) / 1e6;
}

}  // namespace pipeplan
