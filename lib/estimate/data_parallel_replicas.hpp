#pragma once
// Weights kept by several data-parallel replicas (docs/costs.md, "Memory", "Devices, optimizer and
// transfers" and "FSDP"): what a parameter keeps between steps, what Adam's step moves, the
// collectives that keep the replicas equal, and what of them the step waits for.
#include "estimate/gpu_catalog.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// Bytes per parameter for weights, gradients and Adam's states: 16-bit weights with fp32
/// gradients, fp32 master weights and two fp32 moments take 18; fp32 training takes 16
/// (Megatron-LM's distributed-optimizer documentation).
[[nodiscard]] int static_bytes_per_parameter(DType dtype);

/// The same with `sharding` over `data_parallel` replicas: the weight (2 or 4 bytes) stays whole,
/// the gradient (`gradient` bytes: 4 in fp32, 2 under --grad-reduce-in-bf16) is divided under
/// Sharding::Gradients, the optimizer's states (12: fp32 master and two moments; 8 in fp32
/// training, whose weight is its own master) under both (Megatron's table: 6 + 12/d for bf16
/// with the distributed optimizer). FSDP's are fsdp.hpp's.
[[nodiscard]] double static_bytes_per_parameter(DType dtype, Sharding sharding, int data_parallel, double gradient = 4);

/// The data-parallel collectives of a step: the gradients' reduction and the stepped weights'
/// all-gather, each alone on its link.
struct DataParallelMs {
  double reduce_ms = 0, gather_ms = 0;
};

/// What `params` parameters of one device take between and at its steps: the bytes they keep,
/// the bytes Adam's step on the rank's share moves, and the collectives (Replicas::step).
struct ReplicaStep {
  double static_bytes = 0;
  double adam_bytes = 0;
  DataParallelMs collectives;
};

/// Weights kept by `count` data-parallel ranks (dp·cp for the dense weights, edp for the
/// experts'), which shard them as `requested` says when there are several. `pipelined`: beside
/// pipeline parallelism, where FSDP gathers once a step (fsdp.hpp).
struct Replicas {
  int count = 1;
  Sharding requested = Sharding::None;
  bool pipelined = false;
  double gradient = 4;  ///< bytes of a gradient as it accumulates and is reduced (gradient_bytes)

  [[nodiscard]] Sharding sharding() const { return count > 1 ? requested : Sharding::None; }
  [[nodiscard]] double ring() const { return (count - 1.0) / count; }

  /// Under Sharding::Gradients, each W's reduce-scatter of the gradients it made.
  [[nodiscard]] double gradient_scatter_ms(double params, const LinkSpec& link) const;
  /// The collectives of `params` parameters after the last op: the gradients' reduction (an
  /// all-reduce, or a reduce-scatter under the distributed optimizer; under Sharding::Gradients
  /// each W did it) and the stepped weights' all-gather. FSDP beside pipeline parallelism: its
  /// one reduce-scatter and gather a step; alone, its units did theirs.
  [[nodiscard]] DataParallelMs collectives(double params, DType dtype, const LinkSpec& link) const;
  /// The static memory, Adam's traffic and the collectives of `params` parameters.
  [[nodiscard]] ReplicaStep step(double params, DType dtype, const LinkSpec& link) const;
};

}  // namespace pipeplan
