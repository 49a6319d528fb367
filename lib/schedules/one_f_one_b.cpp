#include <algorithm>

#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

Schedule generate_1f1b(const GenerateRequest& request) {
  check_request("1f1b", request);
  Schedule s = single_chunk_schedule("1f1b", request);
  const int p = request.devices;
  const int m = request.microbatches;
  for (int d = 0; d < p; ++d) {
    DeviceOrder order(s, d);
    const int warmup = std::min(p - 1 - d, m);
    int forward = 0;
    int backward = 0;
    while (forward < warmup) order.add(OpKind::F, forward++);
    while (forward < m) {
      order.add(OpKind::F, forward++);
      order.add(OpKind::BW, backward++);
    }
    while (backward < m) order.add(OpKind::BW, backward++);
  }
  return s;
}

}  // namespace pipeplan
