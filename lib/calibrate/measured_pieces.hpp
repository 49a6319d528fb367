#pragma once
// The measured piece times a profile from `pipeplan-gpu calibrate` carries, for the planner to
// use instead of its estimates (docs/gpu.md, docs/costs.md).
#include <string>

#include "estimate/analytic_profile.hpp"
#include "estimate/layout.hpp"
#include "estimate/model_config.hpp"
#include "estimate/training.hpp"
#include "io/json_text.hpp"

namespace pipeplan {

struct CalibratedProfile {
  MeasuredPieces pieces;      ///< the sum of each piece's medians per phase
  TrainingSettings training;  ///< seq, micro_batch, dtype, tp, flash_attention as measured
  ModelConfig model;          ///< the shapes measured
  Layout layout;              ///< the profile's stages
};

/// Reads the "calibration" and "measurements" of a calibrated profile. Throws Error naming the
/// file and field when they are missing or malformed.
[[nodiscard]] CalibratedProfile calibrated_profile_from_json(const Json& profile, const std::string& source);

}  // namespace pipeplan
