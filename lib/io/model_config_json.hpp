#pragma once
// A model's config.json (docs/costs.md, "Model input"): the Llama / Mistral / Qwen family's keys
// and GPT-2's names where they differ are accepted, with Mixtral's and Qwen-MoE's experts.
#include <string>

#include "estimate/model_config.hpp"
#include "io/json_text.hpp"

namespace pipeplan {

/// Reads a config.json document parsed from `source`. Throws Error naming the key when one is
/// missing or not a positive integer in range, when the heads do not divide the hidden size or
/// the key-value heads do not divide the heads.
[[nodiscard]] ModelConfig model_config_from_json(const Json& document, const std::string& source);

/// Reads the config.json at `path`.
[[nodiscard]] ModelConfig read_model_config_file(const std::string& path);

/// The model as config.json keys (the Llama family's, or GPT-2's for a GPT-2-style model) that
/// model_config_from_json reads back to the same shape.
[[nodiscard]] Json model_config_to_json(const ModelConfig& model);

}  // namespace pipeplan
