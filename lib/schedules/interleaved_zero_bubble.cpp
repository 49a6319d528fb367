// PyTorch pipelining's ScheduleInterleavedZeroBubble (torch/distributed/pipelining/schedules.py,
// `_calculate_single_rank_operations` and `_get_1f1b_rank_ops` with enable_zero_bubble; read at
// pytorch/pytorch 00722e648b740f91d0e71494baa17891749fd291, the commit that wrote the CSVs in
// tests/data/pytorch/generated/). PyTorch calls it ZB1P (Qi et al., ICLR 2024):
// interleaved 1F1B on the loop placement with the backward split into B (PyTorch's I) and W, and
// each W held back to fill the bubble. With V = 1 it is ZB-H1.
//
// Micro-batches go in rounds: R = max(1, floor(M/P)) rounds of n = M/R micro-batches each, which
// PyTorch refuses unless R divides M. Every rank runs its M·V forwards as blocks of n: block j is
// chunk j mod V, micro-batches (j div V)·n .. +n-1; its backwards use the same blocks with the
// chunk reversed, V-1 - j mod V. On rank r:
//   1. w = min((V-1)·n + P-1-r, M·V) warm-up forwards;
//   2. for k = 0 .. M·V-1: the next forward while any is left, backward k, and once k >= r the
//      W of backward k-r (the W trail their backwards by r, as in ZB-H1);
//   3. the r remaining W.
// PyTorch then pads the lists with idle steps (`_add_bubbles_to_actions`); a pipeplan schedule is
// only each device's order, so the idle steps have no counterpart here and the order is PyTorch's.
// PyTorch also refuses a compute order that its send/recv lowering cannot run (a dependency
// deadlock); none of this rule's orders deadlocks (tests/interleaved_zb_test.cpp sweeps P, M, V).
#include <algorithm>

#include "model/placement.hpp"
#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

Schedule generate_interleaved_zero_bubble(const GenerateRequest& request) {
  check_request("interleaved-zb", request);
  const int p = request.devices;
  const int m = request.microbatches;
  const int v = request.chunks;
  const int n = microbatches_per_round("interleaved-zb", request);
  const int total = m * v;
  Schedule s = empty_schedule("interleaved-zb", request, loop_placement(p, v));
  for (int r = 0; r < p; ++r) {
    DeviceOrder order(s, r);
    // The k-th forward or backward of this rank: block k/n, its chunk forward or reversed.
    auto add = [&](OpKind kind, int k) {
      const int block = k / n;
      const int chunk = kind == OpKind::F ? block % v : v - 1 - block % v;
      order.add_at(kind, chunk * p + r, (block / v) * n + k % n);
    };
    const int warmup = std::min((v - 1) * n + p - 1 - r, total);
    for (int k = 0; k < warmup; ++k) add(OpKind::F, k);
    int weights = 0;
    for (int k = 0; k < total; ++k) {
      if (warmup + k < total) add(OpKind::F, warmup + k);
      add(OpKind::B, k);
      if (k >= r) add(OpKind::W, weights++);
    }
    while (weights < total) add(OpKind::W, weights++);
  }
  return s;
}

}  // namespace pipeplan
