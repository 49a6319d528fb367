#pragma once
// Standard stage-to-device placements: loop and V-shaped (docs/schedules.md).
#include <vector>

namespace pipeplan {

/// Interleaved placement: stage s of devices*chunks stages lives on device s mod devices.
/// With chunks = 1 this is the plain pipeline, stage s on device s.
[[nodiscard]] std::vector<int> loop_placement(int devices, int chunks);

/// V-shape placement for 2 chunks: stage s < P on device s, stage s >= P on device 2P-1-s,
/// so device 0 holds the first and the last stage (ZB-V, DualPipeV).
[[nodiscard]] std::vector<int> vee_placement(int devices);

}  // namespace pipeplan
