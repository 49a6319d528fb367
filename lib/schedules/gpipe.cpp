#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

Schedule generate_gpipe(const GenerateRequest& request) {
  check_request("gpipe", request);
  Schedule s = single_chunk_schedule("gpipe", request);
  for (int d = 0; d < request.devices; ++d) {
    DeviceOrder order(s, d);
    for (int m = 0; m < request.microbatches; ++m) order.add(OpKind::F, m);
    for (int m = 0; m < request.microbatches; ++m) order.add(OpKind::BW, m);
  }
  return s;
}

}  // namespace pipeplan
