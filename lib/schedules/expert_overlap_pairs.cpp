#include "schedules/expert_overlap_pairs.hpp"

#include <utility>
#include <vector>

namespace pipeplan {

Schedule pair_backwards_with_next_forwards(Schedule schedule) {
  for (std::vector<Op>& ops : schedule.order) {
    std::vector<Op> paired;
    paired.reserve(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      // A forward never waits for a backward of its own device's earlier micro-batch, so the
      // pair can start when both parts could: the later forward moves up beside the backward.
      if (ops[i].kind == OpKind::BW && i + 1 < ops.size() && ops[i + 1].kind == OpKind::F) {
        paired.push_back(overlapped(ops[i + 1].stage, ops[i + 1].microbatch, ops[i].stage, ops[i].microbatch));
        ++i;
      } else {
        paired.push_back(ops[i]);
      }
    }
    ops = std::move(paired);
  }
  return schedule;
}

}  // namespace pipeplan
