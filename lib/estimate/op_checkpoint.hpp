#pragma once
// torchtitan's selective activation checkpointing by op (`--recompute ops`; docs/costs.md,
// "Memory"), as its parallelize_llama.py at 9dec370 runs it on a Llama block: every op's output
// is recomputed in the backward but those on its save list, flash attention's outputs and
// `aten.mm`'s, of which every second is recomputed too (the policy counts mm calls within a
// block: the first, third, ... are saved). The block's products run as its model.py writes them:
// wq, wk, wv, wo, then w1, w3 (a gated MLP's) and w2; so wq's, wv's, w1's and w2's outputs are
// kept. Under FP8 torchao's float8 linears run `_scaled_mm`, which is off the list, yet
// torchtitan's Table 3 measures about as much kept as in bf16 (61.8 GiB with float8 and
// compile, 67.0 without either, 8B on 128 GPUs): the same products are taken as saved.
#include <optional>
#include <string>
#include <vector>

#include "estimate/attention_shape.hpp"
#include "estimate/model_config.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

struct OpCheckpoint {
  double saved_width = 0;          ///< elements a token keeps of the saved products' outputs
  std::vector<Linear> recomputed;  ///< the products the backward runs again, in order
};

/// Why the policy does not apply to `model` as `training` runs it, "--recompute ops: ..."; nullopt
/// when it does. torchtitan's Llama block has no latent attention and no expert layers, and the
/// policy saves flash attention's outputs.
[[nodiscard]] std::optional<std::string> op_checkpoint_refusal(const ModelConfig& model,
                                                               const TrainingSettings& training);

/// The policy on a block of `model` with an MLP of `mlp_width` (0: none). Throws Error with
/// op_checkpoint_refusal's words where it does not apply.
[[nodiscard]] OpCheckpoint op_checkpoint(const ModelConfig& model, const TrainingSettings& training,
                                         std::int64_t mlp_width);

}  // namespace pipeplan
