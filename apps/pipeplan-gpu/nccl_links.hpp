#pragma once
// NCCL send/recv between every pair of adjacent devices of this process, over a sweep of sizes
// (8 B to 1 GiB), one direction and both at once, with the line latency + bytes / bandwidth as a
// summary (docs/gpu.md). Each sample is the mean of a batch of back-to-back transfers between
// one pair of events, so that small sizes do not measure the host's launch latency.
#include <string>
#include <vector>

#include "calibrate/link_fit.hpp"
#include "gemm_timer.hpp"

namespace pipeplan::gpu {

struct LinkMeasurement {
  int from = 0, to = 0;
  bool both_directions = false;
  std::vector<TransferSample> table;  ///< median time of each size
  LinkFit fit;
};

/// Needs two devices or more (throws GpuError otherwise, and on any CUDA or NCCL failure).
[[nodiscard]] std::vector<LinkMeasurement> measure_links(int devices, const TimingPlan& plan);

}  // namespace pipeplan::gpu
