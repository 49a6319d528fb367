#pragma once
// The names of NVML's clock event (throttle) reasons, the bit mask
// nvmlDeviceGetCurrentClocksEventReasons returns, for the profile's context (docs/gpu.md): a
// calibration taken while the card was power- or thermally-capped is not the card's speed.
#include <cstdint>
#include <string>
#include <vector>

namespace pipeplan {

/// "gpu_idle", "sw_power_cap", ... for each bit set, lowest first; an unknown bit as "bit N".
[[nodiscard]] std::vector<std::string> throttle_reason_names(std::uint64_t mask);

/// The reasons that slow a busy card down (every bit but idle, the application clock setting
/// and the display clock setting), or 0.
[[nodiscard]] std::uint64_t slowing_reasons(std::uint64_t mask);

}  // namespace pipeplan
