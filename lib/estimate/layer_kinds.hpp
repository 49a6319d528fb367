#pragma once
// Which layers of a model differ from which (docs/costs.md, "Layer kinds"): a layer's MLP is
// dense or the model's experts (DeepSeek's first dense layers, Llama 4's interleaved experts),
// and its attention sees the whole sequence or a local window (GPT-OSS's alternating sliding
// window, Llama 4's chunks). Layers of one kind cost the same; a stage's work is its layers'.
#include <compare>
#include <vector>

#include "estimate/model_config.hpp"

namespace pipeplan {

struct LayerKind {
  bool experts = false;  ///< the MLP is the model's experts; otherwise dense, `ffn` wide
  bool local = false;    ///< the attention sees model.local.window tokens only
  auto operator<=>(const LayerKind&) const = default;
};

/// The kind of layer `layer` (0-based) of `model`.
[[nodiscard]] LayerKind layer_kind(const ModelConfig& model, int layer);

/// The model's distinct kinds in order of first appearance (at least one), and each layer's
/// index among them.
struct LayerKinds {
  std::vector<LayerKind> kinds;
  std::vector<int> of_layer;
  [[nodiscard]] bool uniform() const { return kinds.size() <= 1; }
};
[[nodiscard]] LayerKinds layer_kinds(const ModelConfig& model);

/// The kind of DeepSeek's multi-token prediction layer: the model's last layer's MLP, full attention.
[[nodiscard]] LayerKind mtp_layer_kind(const ModelConfig& model);

}  // namespace pipeplan
