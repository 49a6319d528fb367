// PyTorch pipelining's ScheduleLoopedBFS (torch/distributed/pipelining/schedules.py): each
// device runs every forward of its first chunk, then of its next, then every fused backward in
// reverse chunk order and reverse micro-batch order. Breadth-first: the most memory, the
// fewest switches between chunks.
#include "model/placement.hpp"
#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

Schedule generate_looped_bfs(const GenerateRequest& request) {
  check_request("looped-bfs", request);
  const int p = request.devices;
  const int v = request.chunks;
  const int m = request.microbatches;
  Schedule s = empty_schedule("looped-bfs", request, loop_placement(p, v));
  for (int d = 0; d < p; ++d) {
    DeviceOrder order(s, d);
    for (int c = 0; c < v; ++c) {
      for (int mb = 0; mb < m; ++mb) order.add_at(OpKind::F, c * p + d, mb);
    }
    for (int c = v - 1; c >= 0; --c) {
      for (int mb = m - 1; mb >= 0; --mb) order.add_at(OpKind::BW, c * p + d, mb);
    }
  }
  return s;
}

}  // namespace pipeplan
