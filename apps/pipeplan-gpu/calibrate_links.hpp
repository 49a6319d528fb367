#pragma once
// The transfer half of `pipeplan-gpu calibrate` (docs/gpu.md): NCCL between adjacent devices,
// the profile's transfer time taken from the measured tables at the activation's size, and the
// lines kept as summaries. A failure of NCCL costs the transfer, not the compute measurements.
#include <optional>
#include <string>

#include "gemm_timer.hpp"
#include "io/json_text.hpp"
#include "model/units.hpp"

namespace pipeplan::gpu {

struct TransferMeasurement {
  std::optional<double> ms;    ///< one activation's transfer: the mean of the one-way links' tables
  Json links = Json::array();  ///< each pair and mode: its line, its table, its time at `bytes`
  std::string not_measured;    ///< why there is no `ms`, when there is none
};

/// Measures when `wanted` and there are two devices or more; never throws for a CUDA or NCCL
/// failure (it becomes not_measured, with the error).
[[nodiscard]] TransferMeasurement measure_transfer(bool wanted, int devices, const TimingPlan& plan, Bytes bytes);

}  // namespace pipeplan::gpu
