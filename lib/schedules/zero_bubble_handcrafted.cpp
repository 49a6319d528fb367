// ZB-H1 and ZB-H2 share one rule and differ in two numbers per device: how many forwards run
// before the first backward, and how many micro-batches each W lags its B.
#include <algorithm>

#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

namespace {

void split_backward_order(Schedule& s, int device, int warmup, int lag) {
  const int m = s.microbatches;
  DeviceOrder order(s, device);
  int forward = 0;
  int weight = 0;
  while (forward < std::min(warmup, m)) order.add(OpKind::F, forward++);
  for (int i = 0; i < m; ++i) {
    if (forward < m) order.add(OpKind::F, forward++);
    order.add(OpKind::B, i);
    if (i >= lag) order.add(OpKind::W, weight++);
  }
  while (weight < m) order.add(OpKind::W, weight++);
}

}  // namespace

Schedule generate_zbh1(const GenerateRequest& request) {
  check_request("zbh1", request);
  Schedule s = single_chunk_schedule("zbh1", request);
  const int p = request.devices;
  for (int d = 0; d < p; ++d) split_backward_order(s, d, p - 1 - d, d);
  return s;
}

Schedule generate_zbh2(const GenerateRequest& request) {
  check_request("zbh2", request);
  Schedule s = single_chunk_schedule("zbh2", request);
  const int p = request.devices;
  for (int d = 0; d < p; ++d) split_backward_order(s, d, 2 * (p - 1 - d), 2 * d);
  return s;
}

}  // namespace pipeplan
