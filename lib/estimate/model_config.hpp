#pragma once
// A transformer's shape, as a Hugging Face config.json gives it (docs/costs.md, "Model input");
// io/model_config_json.hpp reads and writes the file.
#include <cstdint>
#include <string>
#include <vector>

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
  bool biases = false;       ///< GPT-OSS: the experts' projections and the router carry biases
  /// GPT-OSS's swiglu_limit: the experts' gate clamped at most, and their linear half within
  /// plus or minus, this value before the activation; 0: no clamp.
  double activation_clamp = 0;
  /// DeepSeek's node-limited routing (n_group, topk_group): the experts fall into `groups`, and
  /// each token's experts into at most `groups_per_token` of them. 0: unlimited.
  int groups = 0, groups_per_token = 0;
};

/// DeepSeek's multi-head latent attention (DeepSeek-V2 report, section 2.1; docs/costs.md,
/// "Latent attention"): the queries and the keys and values pass through low-rank latents, and
/// each head's key is a no-position part from the latent beside a rotary part shared by all heads.
struct LatentAttention {
  int q_rank = 0;   ///< q_lora_rank; 0: the queries are projected from the hidden state directly
  int kv_rank = 0;  ///< kv_lora_rank; 0: not latent attention
  int qk_nope = 0;  ///< qk_nope_head_dim: the part of a head's query and key without rotary positions
  int qk_rope = 0;  ///< qk_rope_head_dim: the rotary part (one key part shared by every head)
  int v_dim = 0;    ///< v_head_dim

  [[nodiscard]] bool enabled() const { return kv_rank > 0; }
};

/// Attention that sees only part of the sequence on some layers (docs/costs.md, "Local attention").
struct LocalAttention {
  int window = 0;            ///< tokens: sliding_window (GPT-OSS), attention_chunk_size (Llama 4); 0: none
  bool chunked = false;      ///< attention within fixed chunks of `window` tokens (Llama 4) instead of a sliding window
  std::vector<bool> layers;  ///< which layers attend locally (one entry a layer); empty: none
};

struct ModelConfig {
  std::string name;  ///< "model_type" or the file's name, for reports
  /// The family row that read the config and writes it back (io/model_family.hpp): "llama",
  /// "deepseek_v3", ... Empty: the Llama family's keys.
  std::string family;
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
  int explicit_head_dim = 0;       ///< head_dim when the config gives one (Qwen3, GPT-OSS); 0: hidden / heads
  bool attention_biases = false;   ///< biases on the query, key and value projections (Qwen2, GPT-OSS)
  bool embedding_norm = false;     ///< a LayerNorm right after the embedding (BLOOM's word_embeddings_layernorm)
  bool output_bias = false;        ///< a bias on the attention's output projection too (GPT-OSS's o_proj)
  bool qk_norm = false;            ///< an RMSNorm on each head's query and key (Qwen3): 2 x head_dim weights
  bool attention_sinks = false;    ///< GPT-OSS: one learned softmax sink a head
  double rotary_share = 1.0;       ///< the share of a head's dimensions RoPE turns (Nemotron's partial_rotary_factor)
  LatentAttention latent;          ///< DeepSeek-V3's attention; disabled for every other family
  LocalAttention local;            ///< sliding-window or chunked attention on some layers
  /// The first layers whose MLP is dense (DeepSeek's first_k_dense_replace), the others' experts.
  int first_dense_layers = 0;
  /// Every moe_layer_step-th layer has experts, the others a dense MLP of `ffn` (Llama 4's
  /// interleave_moe_layer_step, Qwen-MoE's decoder_sparse_step): layer i when (i + 1) % step == 0.
  int moe_layer_step = 1;
  /// DeepSeek-V3's multi-token prediction (num_nextn_predict_layers): a further layer, its
  /// projection and the shared head's loss again, on the last stage (docs/costs.md).
  int mtp_layers = 0;
  /// qk_norm taken over every head's queries at once and every head's keys at once (MiniMax-M2's
  /// qk_norm_type "per_layer"): q_hidden + kv_hidden weights instead of 2 x head_dim.
  bool qk_norm_across_heads = false;

  [[nodiscard]] bool is_moe() const { return moe.experts > 0; }
  /// Whether tensor parallelism of `tp` ranks leaves each query-key norm on one rank's heads: a
  /// norm across heads needs its sum of squares all-reduced over the ranks (Megatron-Bridge's
  /// MiniMax-M2 layer), which is not timed, so it is planned at tp 1 only.
  [[nodiscard]] bool qk_norm_fits_tensor_parallel(int tp) const {
    return !(qk_norm && qk_norm_across_heads) || tp == 1;
  }

  [[nodiscard]] int head_dim() const { return explicit_head_dim > 0 ? explicit_head_dim : hidden / heads; }
  /// The queries' width: heads x head_dim (the hidden size, except where head_dim is given).
  [[nodiscard]] std::int64_t q_hidden() const { return static_cast<std::int64_t>(heads) * head_dim(); }
  /// The width of K and V together's half: kv_heads x head_dim.
  [[nodiscard]] std::int64_t kv_hidden() const { return static_cast<std::int64_t>(kv_heads) * head_dim(); }
};

}  // namespace pipeplan
