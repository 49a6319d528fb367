#pragma once
// Which models pipeplan's analytic costs describe, one row a family (docs/costs.md, "Model
// input"): the config.json model_type and architectures that name it, the keys it is read from
// and written back with. The estimator reads only the ModelConfig the row fills (its layer
// kinds, attention and experts), so a new family is one row here and, when it brings a new kind
// of layer, the formula for it in lib/estimate. Anything else is refused by name.
#include <array>
#include <span>
#include <string>
#include <string_view>

#include "estimate/model_config.hpp"
#include "io/json_fields.hpp"

namespace pipeplan {

struct ModelFamily {
  std::string_view model_type;                    ///< config.json's model_type
  std::array<std::string_view, 2> architectures;  ///< Hugging Face's class names for it ("" unused)
  std::string_view summary;                       ///< what its layers are, for `pipeplan` messages and docs
  std::string_view expert_key;                    ///< the key it reads its routed experts under; "" none
  bool latent_attention = false;                  ///< reads DeepSeek's q_lora_rank and kv_lora_rank
  /// The family's own keys, after the common ones (hidden_size, layers, heads, vocabulary, the
  /// key-value heads, head_dim, tie_word_embeddings, the dropouts) are in `model`.
  void (*read)(const Json& document, const JsonPath& root, ModelConfig& model) = nullptr;
  /// The same keys back, into a document that has the common ones.
  void (*write)(const ModelConfig& model, Json& document) = nullptr;
};

/// Every family, in a fixed order.
[[nodiscard]] std::span<const ModelFamily> model_families();

/// The row of `model_type`, or nullptr.
[[nodiscard]] const ModelFamily* family_named(std::string_view model_type);

/// "pipeplan models decoder-only transformers of model_type llama (...), ...": every family with
/// its summary, for the messages that refuse a model.
[[nodiscard]] std::string modelled_families();

}  // namespace pipeplan
