#include "calibrate/throttle_reasons.hpp"

#include <array>
#include <utility>

namespace pipeplan {

namespace {

// nvml.h's nvmlClocksEventReason* constants (formerly nvmlClocksThrottleReason*).
constexpr std::array<std::pair<std::uint64_t, const char*>, 9> kReasons = {{
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
}};

constexpr std::uint64_t kNotSlowing = 0x1 | 0x2 | 0x100;

}  // namespace

std::vector<std::string> throttle_reason_names(std::uint64_t mask) {
  std::vector<std::string> out;
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t b = std::uint64_t{1} << bit;
    if ((mask & b) == 0) continue;
    std::string name = "bit " + std::to_string(bit);
    for (const auto& [value, known] : kReasons) {
      if (value == b) name = known;
    }
    out.push_back(std::move(name));
  }
  return out;
}

std::uint64_t slowing_reasons(std::uint64_t mask) {
  return mask & ~kNotSlowing;
}

}  // namespace pipeplan
