#pragma once
// Activation offloading to the host (Megatron-LM's --cpu-offloading-num-layers, through
// Transformer Engine's default offload scheduling; docs/costs.md, "Activation offloading"): the
// first N layers' saved activations copied to host memory during the forward and back during
// the backward, over the card's host link, beside the compute. What it frees and what of the
// copies the compute does not hide.
#include <span>

#include "estimate/training.hpp"

namespace pipeplan {

/// One layer as the offload schedule sees it: its forward, its backward (input and weight
/// gradients, which run together without pipeline parallelism) and the bytes it saves.
struct OffloadedLayer {
  double f_ms = 0;
  double backward_ms = 0;
  double bytes = 0;
};

/// What of one micro-batch's copies the compute waits for, forward and backward.
struct OffloadStallMs {
  double forward = 0;
  double backward = 0;
};

/// The wait per micro-batch when the first `offloaded` of `layers` offload over a host link of
/// `gb_per_s` each way, by Transformer Engine's default scheduling: a layer's copy to the host
/// starts with its forward, the copies run one after another, and at most layers - offloaded
/// layers' activations are on the card at any time (the forward waits for copies to finish);
/// in the backward a layer's copy back starts once that limit allows and must be done before
/// the layer's backward begins.
[[nodiscard]] OffloadStallMs offload_stall_ms(std::span<const OffloadedLayer> layers, int offloaded, double gb_per_s);

/// Throws Error naming --offload-layers when `tr` cannot offload on a model of `layers` layers
/// split over `stages` pipeline stages: Megatron-LM's rules (transformer_config.py) refuse it
/// with pipeline parallelism and with activation recompute, and want fewer layers offloaded
/// than the model has.
void check_activation_offload(const TrainingSettings& tr, int layers, int stages);

}  // namespace pipeplan
