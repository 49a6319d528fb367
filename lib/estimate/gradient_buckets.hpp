#pragma once
// Megatron-Core's buckets of the data-parallel collectives (docs/costs.md, "Devices, optimizer and
// transfers", "Buckets"): the overlapped gradient reduction and weight all-gather run bucket by
// bucket, a bucket's reduction once the backward has made all of its gradients, its gather before
// its first module's forward, one NCCL queue after another. So the last bucket the backward
// makes (the first stage's embedding) is reduced after the backward ends, and the first bucket
// the forward needs is gathered before it starts: neither hides, however long the compute.
#include <vector>

#include "estimate/data_parallel_replicas.hpp"

namespace pipeplan {

/// Megatron-Core's default bucket: max(40M, 1M · d) parameters for d data-parallel ranks
/// (dp·cp), "larger DP sizes need larger buckets to ensure collectives do not become
/// latency-bound" (distributed_data_parallel.py and distributed_data_parallel_config.py at
/// d98e8a64).
[[nodiscard]] double default_bucket_params(int data_parallel);

/// The bucket the run uses: --ddp-bucket-size where given, else Megatron-Core's default.
[[nodiscard]] double bucket_params(const TrainingSettings& tr, int data_parallel);

/// One piece of a stage as the buckets see it (its embedding, a layer, its head): the weights
/// whose gradients it makes, of each kind, and one micro-batch's compute through it.
struct BucketPiece {
  double dense_params = 0, expert_params = 0;
  double forward_ms = 0;   ///< F
  double backward_ms = 0;  ///< B + W
};

/// A stage's pieces in forward order. `bucketed`: its gradients split into buckets of the bucket
/// size; otherwise the stage is one bucket (Megatron-Core buckets only pipeline rank 0's first
/// model chunk: the first stage).
struct BucketStage {
  std::vector<BucketPiece> pieces;
  bool bucketed = false;
};

/// Who keeps one kind of weights equal (dense over dp·cp, routed experts over edp) and the link
/// their collectives run over.
struct BucketReplicas {
  const Replicas* replicas = nullptr;
  const LinkSpec* link = nullptr;
};

/// What of a device's bucketed collectives the step waits for, and all of them.
struct BucketedCollectives {
  double reduce_exposed_ms = 0, gather_exposed_ms = 0;
  DataParallelMs total;  ///< every bucket's reduction and gather, hidden or not
};

/// The data-parallel collectives of one device's stages (`stages` in ascending stage order) in
/// buckets of `bucket_params` parameters, each kind of weights in buckets of its own (Megatron-
/// Core's dense and expert-parallel buffers), all on one queue:
/// - buckets close in backward order (a stage's head, its layers from the last, its embedding)
///   at the first piece that brings them to `bucket_params` (param_and_grad_buffer.py);
/// - with `tr.overlap_grad_reduce`, the last micro-batch's backward runs through the device's
///   stages from the last, and each bucket's reduction starts when its last piece's backward has
///   ended and the one before it has finished: the step waits for what runs past the backward's
///   end. Without it, for all of them;
/// - with `tr.overlap_param_gather`, the next step's first forward runs through the stages from
///   the first and waits before each bucket's first piece for its gather. On a device of one
///   stage, the first bucket's gather is dispatched at that wait and each next one when the wait
///   before it ends (finish_param_sync: one bucket ahead); on a device of several (interleaving,
///   Megatron-LM's default align_param_gather) a stage's buckets are dispatched together when the
///   forward reaches the stage before it, the first stage's at the start. `gather_lead_ms`: how
///   long before that forward the first gathers are dispatched (TrainingSettings::
///   param_gather_at_step_start). Without the overlap, the step waits for all of them.
[[nodiscard]] BucketedCollectives bucketed_collectives(const std::vector<BucketStage>& stages, double bucket_params,
                                                       const BucketReplicas& dense, const BucketReplicas& experts,
                                                       DType dtype, const TrainingSettings& tr,
                                                       double gather_lead_ms = 0);

}  // namespace pipeplan
