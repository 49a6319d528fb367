#pragma once
// Full recompute's block method (Megatron-LM's --recompute-method block --recompute-num-layers N,
// megatron/core/recompute.py): each stage, each model chunk under interleaving, recomputes its
// first N layers in the backward and keeps every other layer's activations, as recompute none
// does; TrainingSettings::recompute_layers holds N (docs/costs.md, "Memory").
#include "estimate/training.hpp"

namespace pipeplan {

/// Whether a stage's layer at `index_in_stage` (0: its first) lies past the block and so keeps
/// its activations.
[[nodiscard]] constexpr bool past_recompute_block(const TrainingSettings& tr, int index_in_stage) {
  return tr.recompute == Recompute::Full && tr.recompute_layers > 0 && index_in_stage >= tr.recompute_layers;
}

/// `tr` as the layers past the block train: recompute none.
[[nodiscard]] TrainingSettings past_block_settings(const TrainingSettings& tr);

/// Throws Error naming --recompute-layers when `tr` has a block without full recompute (the
/// other recomputes have no layers to choose) or a negative one.
void check_recompute_block(const TrainingSettings& tr);

}  // namespace pipeplan
