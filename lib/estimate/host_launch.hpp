#pragma once
// The host's share of a layer (docs/costs.md, "Host time"): PyTorch launches every kernel from
// Python, and Transformer Engine's modules spend tens of microseconds of CPU time on each call
// before their kernels reach the stream. The host normally runs ahead of the device and its time
// hides; it shows where the device waits for it: where a layer's launches take longer than its
// kernels, and in a dropless mixture of experts, whose host must read the routed token counts
// back from the device before it can size the dispatch and the grouped products, so each layer
// drains the stream and the device then waits for the launches after that read. CUDA graphs
// (TrainingSettings::cuda_graphs) replay what they captured without the host.
#include "estimate/gpu_catalog.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// What one layer's forward asks of its host: Transformer Engine module calls (the unit is one
/// te.Linear forward's host time) and grouped expert MLP blocks.
struct HostCalls {
  double modules = 0;              ///< module calls of the forward, the graphable ones among them
  double attention_modules = 0;    ///< the attention block's: captured by --cuda-graphs attn
  double router_modules = 0;       ///< the router's and the dispatch preprocessing's: by moe-router and attn
  double grouped_mlps = 0;         ///< TEGroupedMLP blocks: a rank's experts, their two grouped linears and activation
  bool recompute_forward = false;  ///< B runs the forward's calls again (full recompute, torchtitan's by op)
  /// Dropless routing: the forward and the backward each read the token counts back to the host
  /// (Megatron's dispatchers' split sizes, Transformer Engine's grouped linears' m_splits).
  bool waits_for_device = false;

  HostCalls& operator+=(const HostCalls& other);
};

/// The host's time for a layer's forward and backward, in milliseconds.
struct HostMs {
  double f_ms = 0, b_ms = 0;
};

/// What `calls` take the host of `gpu` (its HostCpu) with `graphs` capturing what they capture:
/// nothing where whole layers or the whole step replay.
[[nodiscard]] HostMs host_ms(const HostCalls& calls, const GpuSpec& gpu, CudaGraphs graphs);

/// Of a pass's host time, what the device waits for: all of it after a read of the token counts
/// (`waits`), else what outlasts the pass's `device_ms`, the host being ahead otherwise.
[[nodiscard]] double exposed_host_ms(double host, double device_ms, bool waits);

}  // namespace pipeplan
