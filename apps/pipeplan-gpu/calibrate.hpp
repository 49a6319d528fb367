#pragma once
// `pipeplan-gpu calibrate`: times one layer's work, the head and the embedding on a real card,
// and NCCL transfers between the devices when there are two or more, and writes a profile the
// simulator reads, with the measurements and their context (docs/gpu.md).
#include <string>

#include "estimate/model_config.hpp"
#include "estimate/training.hpp"
#include "gemm_timer.hpp"
#include "io/json_text.hpp"

namespace pipeplan::gpu {

struct CalibrateRequest {
  ModelConfig model;
  TrainingSettings training;
  int stages = 1;        ///< pipeline stages of the profile
  std::string layout;    ///< a layout string, or "" to balance by the measured costs
  std::string gpu_name;  ///< the table's entry for the card, or "" to match the device's name
  int device = 0;
  TimingPlan plan;
  bool transfers = true;  ///< measure NCCL when there are two devices or more
};

struct Calibration {
  Json profile;        ///< the profile document, with "context" and "measurements"
  std::string report;  ///< a short table for the terminal
};

/// Throws NoGpu without a device, GpuError when a call fails, Error for bad input.
[[nodiscard]] Calibration calibrate(const CalibrateRequest& request);

}  // namespace pipeplan::gpu
