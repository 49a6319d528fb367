#pragma once
// Which entry of the GPU table (lib/estimate/gpu_catalog) a device is, from the name CUDA gives it,
// for the peaks calibrate reports beside its measurements (docs/gpu.md). The table's H100 and
// H200 are the SXM cards; the PCIe and NVL cards of the same names have lower clocks and power
// (H100 PCIe: 756 against 989 dense bf16 TFLOP/s) and other links, so they match no entry rather
// than the wrong one.
#include <cstddef>
#include <string>

#include "estimate/gpu_catalog.hpp"

namespace pipeplan {

struct CardMatch {
  const GpuSpec* spec = nullptr;  ///< nullptr: not in the table
  std::string note;               ///< why not, when a near entry exists; else ""
};

/// `asked` (the --gpu name, "" for none) wins; else the device's name, e.g. "NVIDIA H100 80GB
/// HBM3" is h100, "NVIDIA H100 PCIe" none, "NVIDIA B200" b200, "NVIDIA GB200" gb200, "NVIDIA B300
/// SXM6 AC" b300, "NVIDIA GB300" gb300 (the DGX Station's, by its smaller memory, none), "NVIDIA
/// H800" h800; A100s by their memory. Throws Error for an unknown `asked`.
[[nodiscard]] CardMatch match_card(const std::string& device_name, std::size_t memory_bytes, const std::string& asked);

}  // namespace pipeplan
