#include "estimate/gpu_catalog.hpp"

#include <array>

#include "model/closest_names.hpp"
#include "model/error.hpp"
#include "model/name_fold.hpp"

namespace pipeplan {

namespace {

constexpr Bytes kMiB = Bytes{1} << 20;

// Peaks are NVIDIA's data-sheet figures without sparsity; memory is what nvidia-smi reports as
// the total; links are nominal per-direction rates; SM counts are the data sheets' and
// whitepapers' (docs/costs.md lists the sources).
constexpr LinkSpec kNvlink3{"NVLink 3 (600 GB/s both ways)", 300.0, 0.01};
constexpr LinkSpec kNvlink4{"NVLink 4 (900 GB/s both ways)", 450.0, 0.01};
// GeForce cards have no peer access: a transfer is staged through host memory, so it reaches
// about half of PCIe 4.0 x16's 25 GB/s.
constexpr LinkSpec kPcieHost{"PCIe 4.0 x16 through host memory (no peer access)", 10.0, 0.03};
constexpr LinkSpec kHdr{"InfiniBand HDR, one 200 Gb/s NIC per GPU", 25.0, 0.02};
constexpr LinkSpec kNdr{"InfiniBand NDR, one 400 Gb/s NIC per GPU", 50.0, 0.02};
constexpr LinkSpec kEthernet{"100 Gb/s Ethernet per node", 12.5, 0.05};

const std::array<GpuSpec, 6> kGpus = {{
    {"a100-40gb", "NVIDIA A100 SXM4 40GB", 312.0, 312.0, 19.5, 40960 * kMiB, 1555.0, 8, kNvlink3, kHdr, 108},
    {"a100-80gb", "NVIDIA A100 SXM4 80GB", 312.0, 312.0, 19.5, 81920 * kMiB, 2039.0, 8, kNvlink3, kHdr, 108},
    {"h100", "NVIDIA H100 SXM5 80GB", 989.4, 989.4, 66.9, 81559 * kMiB, 3350.0, 8, kNvlink4, kNdr, 132},
    {"h200", "NVIDIA H200 SXM 141GB", 989.4, 989.4, 66.9, 143771 * kMiB, 4800.0, 8, kNvlink4, kNdr, 132},
    {"rtx3090", "NVIDIA GeForce RTX 3090 24GB", 71.0, 71.0, 35.6, 24576 * kMiB, 936.0, 4, kPcieHost, kEthernet, 82},
    {"rtx4090", "NVIDIA GeForce RTX 4090 24GB", 165.2, 165.2, 82.6, 24564 * kMiB, 1008.0, 4, kPcieHost, kEthernet, 128},
}};

}  // namespace

double GpuSpec::peak_flops(DType dtype) const {
  switch (dtype) {
    case DType::BF16:
      return tflops_bf16 * 1e12;
    case DType::FP16:
      return tflops_fp16 * 1e12;
    case DType::FP32:
      return tflops_fp32 * 1e12;
  }
  return tflops_bf16 * 1e12;
}

std::span<const GpuSpec> gpu_catalog() {
  return kGpus;
}

const GpuSpec& gpu_named(std::string_view name) {
  std::vector<std::string_view> names;
  for (const GpuSpec& g : kGpus) {
    if (same_name(g.name, name)) return g;
    names.push_back(g.name);
  }
  std::string message = "unknown GPU '" + std::string(name) + "'";
  std::vector<std::string> close = closest_names(name, names, 3);
  for (std::size_t i = 0; i < close.size(); ++i) message += (i == 0 ? "; did you mean '" : ", '") + close[i] + "'";
  if (!close.empty()) message += "?";
  throw Error(message + " ('pipeplan gpus' lists them)");
}

}  // namespace pipeplan
