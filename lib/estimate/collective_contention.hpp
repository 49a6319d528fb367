#pragma once
// What a collective hidden under compute still costs (docs/costs.md, "Devices, optimizer and
// transfers"): NCCL runs one thread block per channel, each holding a whole SM while it runs ("NCCL
// CTAs won't share an SM with compute kernels"), and uses "the minimal number of SMs to achieve
// the performance of the platform": 16 on a DGX with 8 network cards (NCCL's maintainer, NVIDIA/
// nccl issue #689). The compute beside it runs on the card's other SMs.
#include "estimate/gpu_catalog.hpp"

namespace pipeplan {

/// The SMs an NCCL collective holds while it runs beside compute.
inline constexpr int kCollectiveSms = 16;

/// The compute time a collective of `collective_ms`, `exposed_ms` of it shown on the stream,
/// takes from the compute it hides under: the hidden part times the `sms` it holds over the
/// card's (16 / 132 = 0.121 on an H100). 0 where the card's SM count is not known.
[[nodiscard]] double hidden_collective_ms(double collective_ms, double exposed_ms, const GpuSpec& gpu,
                                          int sms = kCollectiveSms);

}  // namespace pipeplan
