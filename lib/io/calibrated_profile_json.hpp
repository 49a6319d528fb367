#pragma once
// The measured piece times in a profile from `pipeplan-gpu calibrate` (docs/gpu.md).
#include <string>

#include "calibrate/measured_pieces.hpp"
#include "io/json_text.hpp"

namespace pipeplan {

/// Reads the "calibration" and "measurements" of a calibrated profile. Throws Error naming the
/// file and field when they are missing or malformed.
[[nodiscard]] CalibratedProfile calibrated_profile_from_json(const Json& profile, const std::string& source);

}  // namespace pipeplan
