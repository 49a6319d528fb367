#pragma once
// The measured piece times a profile from `pipeplan-gpu calibrate` carries, for the planner to
// use instead of its estimates (docs/gpu.md, docs/costs.md).

#include "estimate/analytic_profile.hpp"
#include "estimate/layout.hpp"
#include "estimate/model_config.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

struct CalibratedProfile {
  MeasuredPieces pieces;      ///< the sum of each piece's medians per phase
  TrainingSettings training;  ///< seq, micro_batch, dtype, tp, flash_attention as measured
  ModelConfig model;          ///< the shapes measured
  Layout layout;              ///< the profile's stages
};

}  // namespace pipeplan
