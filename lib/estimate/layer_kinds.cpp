#include "estimate/layer_kinds.hpp"

#include <algorithm>

namespace pipeplan {

LayerKind layer_kind(const ModelConfig& m, int layer) {
  LayerKind k;
  // Hugging Face's rule for both Qwen-MoE's decoder_sparse_step and Llama 4's
  // interleave_moe_layer_step: layer i is sparse when (i + 1) % step == 0.
  k.experts = m.is_moe() && layer >= m.first_dense_layers && (layer + 1) % std::max(1, m.moe_layer_step) == 0;
  k.local = m.local.window > 0 && layer < int(m.local.layers.size()) && m.local.layers[std::size_t(layer)];
  return k;
}

LayerKinds layer_kinds(const ModelConfig& m) {
  LayerKinds out;
  out.of_layer.reserve(std::size_t(std::max(0, m.layers)));
  for (int i = 0; i < m.layers; ++i) {
    const LayerKind k = layer_kind(m, i);
    auto at = std::find(out.kinds.begin(), out.kinds.end(), k);
    if (at == out.kinds.end()) at = out.kinds.insert(out.kinds.end(), k);
    out.of_layer.push_back(int(at - out.kinds.begin()));
  }
  if (out.kinds.empty()) out.kinds.push_back(layer_kind(m, 0));  // a model of no layers still has their kind
  return out;
}

LayerKind mtp_layer_kind(const ModelConfig& m) {
  LayerKind k = layer_kind(m, std::max(0, m.layers - 1));
  k.local = false;
  return k;
}

}  // namespace pipeplan
