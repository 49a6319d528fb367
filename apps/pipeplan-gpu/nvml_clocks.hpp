#pragma once
// The card's current clocks, temperature, power and clock event (throttle) reasons, read
// through NVML at the start and the end of a calibration (docs/gpu.md). NVML ships with the
// driver (libnvidia-ml.so.1), not with the CUDA toolkit, and this toolkit has no nvml.h: the
// library is opened at run time and the few functions used are declared here from NVML's
// stable C ABI. Where it cannot be opened, the reading says why and nothing else is recorded.
#include <cstdint>
#include <optional>
#include <string>

namespace pipeplan::gpu {

struct ClockReading {
  unsigned sm_mhz = 0, memory_mhz = 0;
  unsigned temperature_c = 0;
  double power_w = 0;
  std::uint64_t reasons = 0;  ///< NVML's clock event reasons (calibrate/throttle_reasons.hpp)
};

/// The reading of the CUDA device `device` (matched to NVML's by PCI bus id), or nullopt with
/// `why` set when NVML is absent or fails.
[[nodiscard]] std::optional<ClockReading> read_clocks(int device, std::string& why);

}  // namespace pipeplan::gpu
