#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

Schedule generate_zbh1_paddle(const GenerateRequest& request) {
  check_request("zbh1-paddle", request);
  Schedule s = single_chunk_schedule("zbh1-paddle", request);
  const int p = request.devices;
  const int m = request.microbatches;
  for (int d = 0; d < p; ++d) {
    DeviceOrder order(s, d);
    int forward = 0;
    int backward = 0;
    // The numbered steps of the seed's job order (seed-paddle-zbh1.md).
    for (int k = 0; k < p - d; ++k) order.add(OpKind::F, forward++);  // 1
    for (int k = 0; k < d; ++k) {                                     // 2
      order.add(OpKind::B, backward++);
      order.add(OpKind::F, forward++);
    }
    for (int k = 0; k < m - p; ++k) {  // 3
      order.add(OpKind::BW, backward++);
      order.add(OpKind::F, forward++);
    }
    for (int k = 0; k < p - d - 1; ++k) order.add(OpKind::BW, backward++);  // 4
    if (d > 0) {                                                            // 5
      order.add(OpKind::B, backward);
      order.add(OpKind::W, backward);
    } else {
      order.add(OpKind::BW, backward);
    }
    for (int k = 0; k < d; ++k) order.add(OpKind::W, k);  // 6
  }
  return s;
}

}  // namespace pipeplan
