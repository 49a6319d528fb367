// PaddlePaddle's eager 1F1B: device d runs 2(P-d)-1 warm-up forwards instead of 1F1B's P-1-d,
// then pairs [BW, F] while forwards are left, then the remaining BW. The extra forwards in flight
// let a device's next forward overlap the transfer of the previous one, at the cost of memory.
#include <algorithm>

#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

Schedule generate_eager_1f1b(const GenerateRequest& request) {
  check_request("eager-1f1b", request);
  const int p = request.devices;
  Schedule s = single_chunk_schedule("eager-1f1b", request);
  const int m = request.microbatches;
  for (int d = 0; d < p; ++d) {
    DeviceOrder order(s, d);
    int forward = 0;
    int backward = 0;
    while (forward < 2 * (p - d) - 1) order.add(OpKind::F, forward++);
    while (forward < m) {
      order.add(OpKind::BW, backward++);
      order.add(OpKind::F, forward++);
    }
    while (backward < m) order.add(OpKind::BW, backward++);
  }
  return s;
}

}  // namespace pipeplan
