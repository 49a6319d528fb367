#pragma once
// A transformer's shape, as a Hugging Face config.json gives it (docs/costs.md, "Model input");
// io/model_config_json.hpp reads and writes the file.
#include <cstdint>
#include <string>

namespace pipeplan {

/// The MLP of a mixture of experts (docs/costs.md, "Mixture of experts"): in every layer a
/// router picks `per_token` of `experts` SwiGLU experts for each token, and the shared expert,
/// when there is one, runs on every token. experts == 0: a dense model.
struct ExpertShape {
  int experts = 0;           ///< routed experts per layer: num_local_experts (Mixtral), num_experts (Qwen-MoE)
  int per_token = 0;         ///< k: num_experts_per_tok
  int ffn = 0;               ///< one expert's width: intermediate_size (Mixtral), moe_intermediate_size (Qwen-MoE)
  int shared_ffn = 0;        ///< the shared expert's width (shared_expert_intermediate_size); 0: none
  bool shared_gate = false;  ///< Qwen-MoE's sigmoid gate on the shared expert's output (an h x 1 weight)
};

struct ModelConfig {
  std::string name;                ///< "model_type" or the file's name, for reports
  int hidden = 0;                  ///< h: hidden_size / n_embd
  int ffn = 0;                     ///< f: intermediate_size / n_inner (GPT-2: 4h when null)
  int layers = 0;                  ///< L: num_hidden_layers / n_layer
  int heads = 0;                   ///< a: num_attention_heads / n_head
  int kv_heads = 0;                ///< num_key_value_heads (grouped-query attention); a when absent
  int vocab = 0;                   ///< V: vocab_size
  int positions = 0;               ///< learned position embeddings (GPT-2's n_positions); 0 for RoPE models
  bool tied_embeddings = false;    ///< tie_word_embeddings: the head reuses the embedding's weights
  bool gated_mlp = true;           ///< SwiGLU (gate, up, down) as in Llama; false: GELU with two matrices
  bool biases = false;             ///< GPT-2's linear layers carry biases; Llama's do not
  bool layer_norm = false;         ///< LayerNorm (weight and bias) instead of RMSNorm (weight only)
  bool attention_dropout = false;  ///< a dropout after the softmax stores a mask and its output
  bool hidden_dropout = false;     ///< dropouts after attention and MLP store one mask each
  ExpertShape moe;                 ///< the experts of a mixture of experts; none for a dense model

  [[nodiscard]] bool is_moe() const { return moe.experts > 0; }

  [[nodiscard]] int head_dim() const { return hidden / heads; }
  /// The width of K and V together's half: kv_heads x head_dim.
  [[nodiscard]] std::int64_t kv_hidden() const { return static_cast<std::int64_t>(kv_heads) * head_dim(); }
};

}  // namespace pipeplan
