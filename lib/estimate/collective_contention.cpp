#include "estimate/collective_contention.hpp"

#include <algorithm>

namespace pipeplan {

double hidden_collective_ms(double collective_ms, double exposed_ms, const GpuSpec& gpu, int sms) {
  if (gpu.sms <= 0) return 0;
  const double share = std::min(1.0, double(sms) / gpu.sms);
  return std::max(0.0, collective_ms - exposed_ms) * share;
}

}  // namespace pipeplan
