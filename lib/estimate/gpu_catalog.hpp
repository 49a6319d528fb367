#pragma once
// The built-in GPU table (docs/costs.md, "GPUs"): dense peak rates, memory and links, from the
// vendor's data sheets. A profile measured by `pipeplan-gpu calibrate` replaces these estimates.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "estimate/training.hpp"
#include "model/units.hpp"

namespace pipeplan {

/// One direction of a link between two GPUs.
struct LinkSpec {
  std::string_view name;      ///< "NVLink 4", "PCIe 4.0 x16 (no peer access)", ...
  double bandwidth_gb_per_s;  ///< per direction, 1 GB = 1e9 bytes
  double latency_ms;
};

struct GpuSpec {
  std::string_view name;  ///< the name `--gpu` takes
  std::string_view description;
  double tflops_bf16;  ///< dense tensor-core peak with fp32 accumulation
  double tflops_fp16;
  double tflops_fp32;  ///< plain fp32 (TF32 off, as PyTorch's default for matmul)
  Bytes memory_bytes;
  double memory_gb_per_s;  ///< memory bandwidth
  int gpus_per_node;       ///< the usual server: beyond it, traffic takes the network
  LinkSpec intra_node;     ///< between GPUs of one node
  LinkSpec inter_node;     ///< between nodes
  int sms;                 ///< streaming multiprocessors: a GEMM's tiles run in waves of this many (0: not modelled)

  /// The dense peak for `dtype`, in FLOP/s.
  [[nodiscard]] double peak_flops(DType dtype) const;
};

/// Every built-in GPU, in a fixed order.
[[nodiscard]] std::span<const GpuSpec> gpu_catalog();

/// The GPU called `name`; throws Error listing the closest names when there is none.
[[nodiscard]] const GpuSpec& gpu_named(std::string_view name);

}  // namespace pipeplan
