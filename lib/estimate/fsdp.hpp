#pragma once
// FSDP2 (ZeRO-3: parameters, gradients and optimizer states sharded) as torchtitan runs it
// (docs/costs.md, "FSDP"): each layer a unit, its weights all-gathered in bf16 and its gradients
// reduce-scattered in fp32 (torchtitan's mixed-precision defaults), over the dp·cp ranks. Alone
// (pp 1) each unit is gathered before its forward and again before its backward and its
// gradients are reduce-scattered after it, every micro-batch, the next unit's gather prefetched
// under this one's compute. Beside pipeline parallelism torchtitan does not reshard after the
// forward, and PyTorch's pipeline stage keeps the weights gathered and the gradients unsharded
// until the last micro-batch's backward: one gather and one reduce-scatter a step.
#include "estimate/gpu_catalog.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

// `gradient` below is a gradient's bytes: fp32's 4 (torchtitan's FSDP2), or 2 where Megatron-FSDP
// keeps and reduces them in bf16 (--grad-reduce-in-bf16, training.hpp's gradient_bytes).

/// Bytes a parameter keeps between steps on each of `shards` ranks: its share of the fp32
/// parameter (FSDP2 keeps the sharded parameter in fp32, which is Adam's master), of the
/// gradient and of Adam's two fp32 moments: 16 / shards with fp32 gradients, in bf16 and fp32
/// training alike.
[[nodiscard]] double fsdp_sharded_bytes_per_parameter(int shards, double gradient = 4);

/// Beside pipeline parallelism, what a parameter of the device's stages holds all step besides:
/// the gathered weight in the training dtype and the unsharded gradient the micro-batches
/// accumulate into (e + gradient bytes). 0 without pipeline parallelism.
[[nodiscard]] double fsdp_unsharded_bytes_per_parameter(DType dtype, bool pipelined, double gradient = 4);

/// Without pipeline parallelism, the units in flight at once: the one computing and the one
/// prefetched, each's gathered weights (e bytes a parameter) and its unsharded gradient before
/// the reduce-scatter: 2·(e + gradient) bytes a parameter of the largest unit.
[[nodiscard]] double fsdp_in_flight_bytes(double largest_unit_params, DType dtype, double gradient = 4);

/// One unit's collectives over `shards` ranks on `link`, as a ring moves them: the all-gather of
/// its weights, (d-1)/d·e bytes a parameter, and the reduce-scatter of its gradients,
/// (d-1)/d·gradient; each one latency. Zero for one shard.
struct FsdpUnitMs {
  double gather_ms = 0, reduce_ms = 0;
};
[[nodiscard]] FsdpUnitMs fsdp_unit_ms(double params, DType dtype, int shards, const LinkSpec& link,
                                      double gradient = 4);

/// FSDP2's copies on the compute stream around a unit's collectives, in bytes moved through
/// memory (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py and _fsdp_param_group.py):
/// after each all-gather, `foreach_all_gather_copy_out` splits the gathered buffer into the
/// unit's parameters, reading and writing e bytes a parameter (2e), in `wait_for_unshard` on the
/// current stream; before each reduce-scatter, `foreach_reduce_scatter_copy_in` packs the
/// unsharded gradients (e bytes) into the reduce dtype's buffer (`gradient` bytes) on the current
/// stream, which the reduce-scatter stream then waits for (e + gradient). Zero for one shard.
struct FsdpCopyBytes {
  double gather_copy_out = 0, reduce_copy_in = 0;
};
[[nodiscard]] FsdpCopyBytes fsdp_copy_bytes(double params, DType dtype, int shards, double gradient = 4);

/// Without pipeline parallelism, what of a unit's collectives its F and B wait for, one unit
/// prefetched ahead, the neighbouring unit's compute taken as this one's (the layers are alike):
/// F max(0, gather - f_ms); B gathers the next unit and reduce-scatters the last on one link,
/// max(0, gather + reduce - (b_ms + w_ms)).
struct FsdpExposedMs {
  double f_ms = 0, b_ms = 0;
};
[[nodiscard]] FsdpExposedMs fsdp_exposed_per_unit(const FsdpUnitMs& unit, double f_ms, double b_ms, double w_ms);

/// Beside pipeline parallelism, what a device's step waits for: the reduce-scatter of all its
/// gradients after its last backward, whole, and what the all-gather of its weights before the
/// step's first forward outlasts one micro-batch's forward on the device (the gathers prefetched
/// one unit ahead under it).
[[nodiscard]] double fsdp_step_exposed_ms(const FsdpUnitMs& device, double first_forward_ms);

}  // namespace pipeplan
