#include "io/model_family.hpp"

#include <cmath>
#include <string>

#include "io/config_keys.hpp"
#include "model/error.hpp"
#include "model/finite.hpp"

namespace pipeplan {

namespace {

constexpr int kMaxExperts = 1 << 16;
constexpr int kW = kMaxConfigWidth;

int experts_per_token(const Json& d, const JsonPath& root, int experts) {
  const int k = required_key(d, {"num_experts_per_tok", "experts_per_token"}, root, 1, kMaxExperts);
  if (k > experts) {
    throw Error(root.key("num_experts_per_tok").where() + ": " + std::to_string(k) +
                " experts per token, more than the " + std::to_string(experts) + " there are");
  }
  return k;
}

// A mixture of experts' family names its experts: without the count, Hugging Face's config
// class would fill in its own default (8 for Mixtral, 60 for Qwen2-MoE), and pipeplan would
// plan a dense model of the wrong size; refused instead, naming the key.
void require_expert_count(const Json& d, const JsonPath& root, std::string_view key, std::string_view family) {
  const Json* v = optional_member(d, key, root);
  if (v == nullptr || v->is_null()) {
    throw Error(root.where() + ": missing '" + std::string(key) + "', the experts of model_type " +
                std::string(family) + " (1 for a dense model)");
  }
}

// A dense layer among sparse ones by index is not one of the layer kinds (layer_kinds.hpp).
void refuse_listed_dense_layers(const Json& d, const JsonPath& root) {
  if (const Json* dense = optional_member(d, "mlp_only_layers", root);
      dense != nullptr && !(dense->is_null() || (dense->is_array() && dense->empty()))) {
    throw Error(root.key("mlp_only_layers").where() + ": " + dense->dump() +
                ": dense layers listed by index among the sparse ones are not modelled (pipeplan's expert layers "
                "follow decoder_sparse_step)");
  }
}

// A per-layer list of `count` entries under `key`, each one of `values`, true where it is `local`.
std::vector<bool> local_layers(const Json& list, const JsonPath& at, int count, std::string_view local,
                               std::string_view full) {
  if (!list.is_array() || int(list.size()) != count) {
    fail_field(at, "a list of one entry a layer (" + std::to_string(count) + ")", list);
  }
  std::vector<bool> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& v = list[i];
    if (!v.is_string() || (v.get<std::string>() != local && v.get<std::string>() != full)) {
      fail_field(at.index(i), "\"" + std::string(local) + "\" or \"" + std::string(full) + "\"", v);
    }
    out.push_back(v.get<std::string>() == local);
  }
  return out;
}

// --- Llama and the families with its layers: RMSNorm, RoPE, SwiGLU, no biases.
void read_llama(const Json& d, const JsonPath& root, ModelConfig& m) {
  m.attention_biases = optional_flag(d, "attention_bias", root, false);
  if (optional_flag(d, "mlp_bias", root, false)) {
    throw Error(root.key("mlp_bias").where() + ": true: biases on the MLP's projections are not modelled");
  }
}
void write_llama(const ModelConfig& m, Json& j) {
  j["attention_bias"] = m.attention_biases;
}

// Mistral 7B v0.1 attends within a 4096-token sliding window on every layer; later ones set null.
void read_mistral(const Json& d, const JsonPath& root, ModelConfig& m) {
  read_llama(d, root, m);
  if (const int w = optional_key(d, {"sliding_window"}, root, 1, 1 << 30, 0); w > 0) {
    m.local.window = w;
    m.local.layers.assign(std::size_t(m.layers), true);
  }
}
void write_mistral(const ModelConfig& m, Json& j) {
  write_llama(m, j);
  j["sliding_window"] = m.local.window > 0 ? Json(m.local.window) : Json(nullptr);
}

// Qwen2 carries biases on Q, K and V (Qwen2Attention's q_proj, k_proj, v_proj).
void read_qwen2(const Json& d, const JsonPath& root, ModelConfig& m) {
  if (optional_flag(d, "use_sliding_window", root, false)) {
    throw Error(root.key("use_sliding_window").where() +
                ": true: Qwen2's sliding window above max_window_layers is not modelled");
  }
  m.attention_biases = true;
}
void write_nothing(const ModelConfig&, Json&) {}

// Qwen3: head_dim given, an RMSNorm on each head's query and key, attention_bias false.
void read_qwen3(const Json& d, const JsonPath& root, ModelConfig& m) {
  read_qwen2(d, root, m);
  m.attention_biases = optional_flag(d, "attention_bias", root, false);
  m.qk_norm = true;
}

// Mixtral: num_local_experts SwiGLU experts, each intermediate_size wide, in every layer.
void read_mixtral(const Json& d, const JsonPath& root, ModelConfig& m) {
  read_llama(d, root, m);
  require_expert_count(d, root, "num_local_experts", "mixtral");
  const int e = optional_key(d, {"num_local_experts"}, root, 0, kMaxExperts, 0);
  if (e <= 1) return;  // one expert, or none, is a dense MLP
  m.moe.experts = e;
  m.moe.per_token = experts_per_token(d, root, e);
  m.moe.ffn = m.ffn;
}
void write_mixtral(const ModelConfig& m, Json& j) {
  if (!m.is_moe()) return;
  j["num_local_experts"] = m.moe.experts;
  j["num_experts_per_tok"] = m.moe.per_token;
}

// Qwen-MoE: num_experts moe_intermediate_size wide in every decoder_sparse_step-th layer, a
// shared expert shared_expert_intermediate_size wide with a sigmoid gate (Qwen2MoeSparseMoeBlock).
void read_qwen_moe_experts(const Json& d, const JsonPath& root, ModelConfig& m) {
  require_expert_count(d, root, "num_experts", "qwen2_moe or qwen3_moe");
  const int e = optional_key(d, {"num_experts"}, root, 0, kMaxExperts, 0);
  if (e <= 1) return;
  refuse_listed_dense_layers(d, root);
  m.moe.experts = e;
  m.moe.per_token = experts_per_token(d, root, e);
  m.moe.ffn = required_key(d, {"moe_intermediate_size"}, root, 1, kW);
  m.moe.shared_ffn = optional_key(d, {"shared_expert_intermediate_size"}, root, 0, kW, 0);
  m.moe.shared_gate = m.moe.shared_ffn > 0;
  m.moe_layer_step = optional_key(d, {"decoder_sparse_step"}, root, 1, kW, 1);
}
void write_qwen_moe_experts(const ModelConfig& m, Json& j) {
  if (!m.is_moe()) return;
  j["num_experts"] = m.moe.experts;
  j["num_experts_per_tok"] = m.moe.per_token;
  j["moe_intermediate_size"] = m.moe.ffn;
  j["shared_expert_intermediate_size"] = m.moe.shared_ffn;
  j["decoder_sparse_step"] = m.moe_layer_step;
  j["mlp_only_layers"] = Json::array();
}
void read_qwen2_moe(const Json& d, const JsonPath& root, ModelConfig& m) {
  read_qwen2(d, root, m);
  read_qwen_moe_experts(d, root, m);
}
void read_qwen3_moe(const Json& d, const JsonPath& root, ModelConfig& m) {
  read_qwen3(d, root, m);
  read_qwen_moe_experts(d, root, m);
}
void write_qwen3_moe(const ModelConfig& m, Json& j) {
  j["attention_bias"] = m.attention_biases;
  write_qwen_moe_experts(m, j);
}

// DeepSeek-V3's experts, which GLM-4.5 shares: the first first_k_dense_replace layers dense
// (intermediate_size), then n_routed_experts experts of moe_intermediate_size with
// n_shared_experts shared ones, and num_nextn_predict_layers MTP modules.
void read_deepseek_experts(const Json& d, const JsonPath& root, ModelConfig& m) {
  require_expert_count(d, root, "n_routed_experts", m.family);
  const int e = optional_key(d, {"n_routed_experts"}, root, 0, kMaxExperts, 0);
  if (e > 1) {
    if (const int freq = optional_key(d, {"moe_layer_freq"}, root, 1, kW, 1); freq != 1) {
      throw Error(root.key("moe_layer_freq").where() + ": " + std::to_string(freq) +
                  ": experts on every moe_layer_freq-th layer only are not modelled (1: every layer after the dense "
                  "ones)");
    }
    m.moe.experts = e;
    m.moe.per_token = experts_per_token(d, root, e);
    m.moe.ffn = required_key(d, {"moe_intermediate_size"}, root, 1, kW);
    m.moe.shared_ffn = optional_key(d, {"n_shared_experts"}, root, 0, kMaxExperts, 0) * m.moe.ffn;
    m.first_dense_layers = optional_key(d, {"first_k_dense_replace"}, root, 0, m.layers, 0);
    // Node-limited routing: n_group groups of experts, each token's in at most topk_group of them.
    m.moe.groups = optional_key(d, {"n_group"}, root, 1, e, 0);
    m.moe.groups_per_token = optional_key(d, {"topk_group"}, root, 1, e, 0);
    if (m.moe.groups > 0 && (e % m.moe.groups != 0 || m.moe.groups_per_token > m.moe.groups)) {
      throw Error(root.key("n_group").where() + ": " + std::to_string(m.moe.groups) + " groups of " +
                  std::to_string(e) + " experts with topk_group " + std::to_string(m.moe.groups_per_token) +
                  ": the groups must divide the experts and topk_group be at most n_group");
    }
  }
  m.mtp_layers = optional_key(d, {"num_nextn_predict_layers"}, root, 0, 64, 0);
}
void write_deepseek_experts(const ModelConfig& m, Json& j) {
  j["num_nextn_predict_layers"] = m.mtp_layers;
  if (!m.is_moe()) return;
  j["n_routed_experts"] = m.moe.experts;
  j["num_experts_per_tok"] = m.moe.per_token;
  j["moe_intermediate_size"] = m.moe.ffn;
  j["n_shared_experts"] = m.moe.shared_ffn / m.moe.ffn;
  j["first_k_dense_replace"] = m.first_dense_layers;
  j["moe_layer_freq"] = 1;
  if (m.moe.groups > 0) j["n_group"] = m.moe.groups;
  if (m.moe.groups_per_token > 0) j["topk_group"] = m.moe.groups_per_token;
}

// DeepSeek-V2 and V3 (and Kimi K2, which ships as DeepseekV3ForCausalLM): latent attention
// (V2-Lite projects its queries without q_lora_rank's latent) and DeepSeek's experts.
void read_deepseek_v3(const Json& d, const JsonPath& root, ModelConfig& m) {
  LatentAttention& l = m.latent;
  l.q_rank = optional_key(d, {"q_lora_rank"}, root, 1, kW, 0);
  l.kv_rank = required_key(d, {"kv_lora_rank"}, root, 1, kW);
  l.qk_nope = required_key(d, {"qk_nope_head_dim"}, root, 1, kW);
  l.qk_rope = required_key(d, {"qk_rope_head_dim"}, root, 1, kW);
  l.v_dim = required_key(d, {"v_head_dim"}, root, 1, kW);
  m.attention_biases = optional_flag(d, "attention_bias", root, false);
  read_deepseek_experts(d, root, m);
}
void write_deepseek_v3(const ModelConfig& m, Json& j) {
  const LatentAttention& l = m.latent;
  j["q_lora_rank"] = l.q_rank > 0 ? Json(l.q_rank) : Json(nullptr);
  j["kv_lora_rank"] = l.kv_rank;
  j["qk_nope_head_dim"] = l.qk_nope;
  j["qk_rope_head_dim"] = l.qk_rope;
  j["v_head_dim"] = l.v_dim;
  j["attention_bias"] = m.attention_biases;
  write_deepseek_experts(m, j);
}

// RoPE on partial_rotary_factor of each head's dimensions (Nemotron, GLM), `fallback` unless given:
// at the top level, or in rope_parameters where transformers 5 writes it.
void read_rotary_share(const Json& d, const JsonPath& root, ModelConfig& m, double fallback) {
  m.rotary_share = fallback;
  JsonPath at = root.key("partial_rotary_factor");
  const Json* f = optional_member(d, "partial_rotary_factor", root);
  if (f == nullptr || f->is_null()) {
    const Json* rope = optional_member(d, "rope_parameters", root);
    if (rope == nullptr || !rope->is_object()) return;
    at = root.key("rope_parameters").key("partial_rotary_factor");
    f = optional_member(*rope, "partial_rotary_factor", root.key("rope_parameters"));
    if (f == nullptr || f->is_null()) return;
  }
  if (!f->is_number() || !finite_within(f->get<double>(), 0.0, 1.0) || f->get<double>() == 0.0) {
    fail_field(at, "a share above 0, at most 1", *f);
  }
  m.rotary_share = f->get<double>();
}

// GLM-4.5, 4.6 and 4.7 (Glm4MoeForCausalLM, transformers' modeling_glm4_moe.py): grouped-query
// attention of head_dim-wide heads with biases on Q, K and V (attention_bias; o_proj has none),
// RoPE on partial_rotary_factor of each head (Glm4MoeConfig's default 0.5), an RMSNorm on each
// head's query and key where use_qk_norm, and DeepSeek-V3's experts, router and MTP layers.
void read_glm4_moe(const Json& d, const JsonPath& root, ModelConfig& m) {
  read_llama(d, root, m);
  read_rotary_share(d, root, m, 0.5);
  m.qk_norm = optional_flag(d, "use_qk_norm", root, false);
  read_deepseek_experts(d, root, m);
}
void write_glm4_moe(const ModelConfig& m, Json& j) {
  write_llama(m, j);
  j["partial_rotary_factor"] = m.rotary_share;
  j["use_qk_norm"] = m.qk_norm;
  write_deepseek_experts(m, j);
}

// GPT-OSS: num_local_experts experts intermediate_size wide with biases (and the router's), in
// every layer; biased attention with a sink a head; layer_types alternating a sliding window.
void read_gpt_oss(const Json& d, const JsonPath& root, ModelConfig& m) {
  m.attention_biases = optional_flag(d, "attention_bias", root, true);
  m.output_bias = m.attention_biases;  // GptOssAttention's o_proj takes attention_bias too
  m.attention_sinks = true;
  const int e = required_key(d, {"num_local_experts"}, root, 2, kMaxExperts);
  m.moe.experts = e;
  m.moe.per_token = experts_per_token(d, root, e);
  m.moe.ffn = m.ffn;
  m.moe.biases = true;
  // GptOssConfig's default swiglu_limit is 7.0 (transformers' configuration_gpt_oss.py).
  m.moe.activation_clamp = 7.0;
  if (const Json* limit = optional_member(d, "swiglu_limit", root); limit != nullptr && !limit->is_null()) {
    if (!limit->is_number() || !finite_within(limit->get<double>(), 0.0, 1e9)) {
      fail_field(root.key("swiglu_limit"), "a clamp of 0 or more (0: none)", *limit);
    }
    m.moe.activation_clamp = limit->get<double>();
  }
  if (const Json* types = optional_member(d, "layer_types", root); types != nullptr && !types->is_null()) {
    m.local.layers = local_layers(*types, root.key("layer_types"), m.layers, "sliding_attention", "full_attention");
    m.local.window = required_key(d, {"sliding_window"}, root, 1, 1 << 30);
  }
}
void write_gpt_oss(const ModelConfig& m, Json& j) {
  j["attention_bias"] = m.attention_biases;
  j["swiglu_limit"] = m.moe.activation_clamp;
  j["num_local_experts"] = m.moe.experts;
  j["num_experts_per_tok"] = m.moe.per_token;
  if (m.local.window > 0) {
    j["sliding_window"] = m.local.window;
    Json types = Json::array();
    for (bool local : m.local.layers) types.push_back(local ? "sliding_attention" : "full_attention");
    j["layer_types"] = types;
  }
}

// MiniMax-M2, M2.1, M2.5 and M2.7 (MiniMaxM2ForCausalLM; transformers' modeling_minimax_m2.py,
// Megatron-Bridge's minimax_m2 bridge): Llama's attention without biases, an RMSNorm over all of
// the heads' queries and one over all of the keys (qk_norm_type "per_layer", weights q_hidden and
// kv_hidden wide), RoPE on rotary_dim of each head's dimensions, num_local_experts SwiGLU experts
// intermediate_size wide in every layer behind a sigmoid router with a correction bias (the
// router's h x E weights counted, its E biases not, as DeepSeek-V3's), and num_mtp_modules
// multi-token prediction modules of one layer, planned as DeepSeek-V3's (neither transformers nor
// Megatron-Bridge implements them; their structure is not published).
void read_minimax_m2(const Json& d, const JsonPath& root, ModelConfig& m) {
  read_llama(d, root, m);
  const int rotary_dim = optional_key(d, {"rotary_dim"}, root, 1, m.head_dim(), 0);
  const double from_dim = rotary_dim > 0 ? double(rotary_dim) / m.head_dim() : 1.0;
  read_rotary_share(d, root, m, from_dim);
  if (rotary_dim > 0 && std::abs(m.rotary_share - from_dim) > 1e-6) {  // a factor written to a few digits agrees
    throw Error(root.key("rotary_dim").where() + ": " + std::to_string(rotary_dim) + " of head_dim " +
                std::to_string(m.head_dim()) + " turns " + Json(from_dim).dump() +
                " of each head, where partial_rotary_factor says " + Json(m.rotary_share).dump());
  }
  m.qk_norm = optional_flag(d, "use_qk_norm", root, true);
  if (const std::string type = optional_text(d, "qk_norm_type", root, "per_layer"); type != "per_layer") {
    fail_field(root.key("qk_norm_type"), "\"per_layer\" (one norm over every head's queries, one over the keys)",
               Json(type));
  }
  m.qk_norm_across_heads = true;
  if (const Json* types = optional_member(d, "attn_type_list", root); types != nullptr && !types->is_null()) {
    if (!types->is_array() || int(types->size()) != m.layers) {
      fail_field(root.key("attn_type_list"), "a list of one entry a layer (" + std::to_string(m.layers) + ")", *types);
    }
    for (std::size_t i = 0; i < types->size(); ++i) {
      if (read_int((*types)[i], root.key("attn_type_list").index(i), 0, 1) != 1) {
        throw Error(root.key("attn_type_list").index(i).where() +
                    ": 0: MiniMax's linear (lightning) attention is not modelled (1: softmax attention)");
      }
    }
  }
  if (const Json* w = optional_member(d, "sliding_window", root); w != nullptr && !w->is_null()) {
    fail_field(root.key("sliding_window"), "null (MiniMax-M2 attends to the whole sequence on every layer)", *w);
  }
  if (const int shared = optional_key(d, {"shared_intermediate_size"}, root, 0, kW, 0); shared > 0) {
    throw Error(root.key("shared_intermediate_size").where() + ": " + std::to_string(shared) +
                ": a shared expert beside MiniMax-M2's routed ones is not modelled (0: none)");
  }
  require_expert_count(d, root, "num_local_experts", "minimax_m2");
  const int e = optional_key(d, {"num_local_experts"}, root, 0, kMaxExperts, 0);
  if (e > 1) {
    m.moe.experts = e;
    m.moe.per_token = experts_per_token(d, root, e);
    m.moe.ffn = m.ffn;
  }
  if (optional_flag(d, "use_mtp", root, false)) {
    if (const int per_module = optional_key(d, {"mtp_transformer_layers"}, root, 1, 64, 1); per_module != 1) {
      throw Error(root.key("mtp_transformer_layers").where() + ": " + std::to_string(per_module) +
                  ": multi-token prediction modules of more than one layer are not modelled (1)");
    }
    m.mtp_layers = optional_key(d, {"num_mtp_modules"}, root, 0, 64, 0);
  }
}
void write_minimax_m2(const ModelConfig& m, Json& j) {
  write_llama(m, j);
  j["partial_rotary_factor"] = m.rotary_share;
  j["use_qk_norm"] = m.qk_norm;
  j["qk_norm_type"] = "per_layer";
  j["shared_intermediate_size"] = 0;
  j["use_mtp"] = m.mtp_layers > 0;
  j["num_mtp_modules"] = m.mtp_layers;
  j["mtp_transformer_layers"] = 1;
  if (!m.is_moe()) return;
  j["num_local_experts"] = m.moe.experts;
  j["num_experts_per_tok"] = m.moe.per_token;
}

// Llama 4's text model: num_local_experts experts intermediate_size wide and a shared expert as
// wide on every interleave_moe_layer_step-th layer, the others dense intermediate_size_mlp wide;
// attention within attention_chunk_size chunks on the layers that use RoPE (no_rope_layers 1,
// by default all but every fourth).
void read_llama4(const Json& d, const JsonPath& root, ModelConfig& m) {
  const int e = optional_key(d, {"num_local_experts"}, root, 0, kMaxExperts, 0);
  const int expert_ffn = m.ffn;
  m.ffn = optional_key(d, {"intermediate_size_mlp"}, root, 1, kW, m.ffn);
  if (e > 1) {
    m.moe.experts = e;
    m.moe.per_token = experts_per_token(d, root, e);
    m.moe.ffn = expert_ffn;
    m.moe.shared_ffn = expert_ffn;
    m.moe_layer_step = optional_key(d, {"interleave_moe_layer_step"}, root, 1, kW, 1);
  }
  if (const int chunk = optional_key(d, {"attention_chunk_size"}, root, 1, 1 << 30, 0); chunk > 0) {
    m.local.window = chunk;
    m.local.chunked = true;
    m.local.layers.assign(std::size_t(m.layers), false);
    const Json* rope = optional_member(d, "no_rope_layers", root);
    if (rope != nullptr && rope->is_array() && !rope->empty()) {
      if (int(rope->size()) != m.layers) fail_field(root.key("no_rope_layers"), "one entry a layer", *rope);
      for (std::size_t i = 0; i < rope->size(); ++i) {
        m.local.layers[i] = read_int((*rope)[i], root.key("no_rope_layers").index(i), 0, 1) == 1;
      }
    } else {
      const int interval = optional_key(d, {"no_rope_layer_interval"}, root, 1, kW, 4);
      for (int i = 0; i < m.layers; ++i) m.local.layers[std::size_t(i)] = (i + 1) % interval != 0;
    }
  }
}
void write_llama4(const ModelConfig& m, Json& j) {
  if (m.is_moe()) {
    j["intermediate_size"] = m.moe.ffn;
    j["intermediate_size_mlp"] = m.ffn;
    j["num_local_experts"] = m.moe.experts;
    j["num_experts_per_tok"] = m.moe.per_token;
    j["interleave_moe_layer_step"] = m.moe_layer_step;
  }
  if (m.local.window > 0) {
    j["attention_chunk_size"] = m.local.window;
    Json rope = Json::array();
    for (bool local : m.local.layers) rope.push_back(local ? 1 : 0);
    j["no_rope_layers"] = rope;
  }
}

// Nemotron (NemotronForCausalLM): LayerNorm with a bias (LayerNorm1P), a squared-ReLU MLP of two
// matrices, no linear biases, RoPE on partial_rotary_factor of each head.
void read_nemotron(const Json& d, const JsonPath& root, ModelConfig& m) {
  const std::string act = optional_text(d, "hidden_act", root, "relu2");
  if (act != "relu2") fail_field(root.key("hidden_act"), "\"relu2\" (Nemotron's squared ReLU)", Json(act));
  m.gated_mlp = false;
  m.layer_norm = true;
  m.attention_biases = optional_flag(d, "attention_bias", root, false);
  if (optional_flag(d, "mlp_bias", root, false)) {
    throw Error(root.key("mlp_bias").where() + ": true: biases on the MLP's projections are not modelled");
  }
  read_rotary_share(d, root, m, m.rotary_share);
}
void write_nemotron(const ModelConfig& m, Json& j) {
  j["hidden_act"] = "relu2";
  j["attention_bias"] = m.attention_biases;
  j["partial_rotary_factor"] = m.rotary_share;
}

// GPT-2: LayerNorm, learned positions, a GELU MLP of two matrices, biases (its key names are
// read and written by model_config_json).
void read_gpt2(const Json&, const JsonPath&, ModelConfig& m) {
  m.gated_mlp = false;
  m.biases = true;
  m.layer_norm = true;
}

// BLOOM (BloomForCausalLM): GPT-2's layers (LayerNorm, a 4h GELU MLP, biases) with ALiBi's
// score biases in place of any position embedding, and tied embeddings.
void read_bloom(const Json&, const JsonPath&, ModelConfig& m) {
  m.gated_mlp = false;
  m.biases = true;
  m.layer_norm = true;
  m.embedding_norm = true;  // word_embeddings_layernorm
  m.rotary_share = 0;       // ALiBi adds to the scores inside the fused attention: no rotation
  if (m.ffn == 0) m.ffn = 4 * m.hidden;
}

constexpr std::string_view kLlamaLayers = "RMSNorm, rotary positions, SwiGLU MLP";

const std::array<ModelFamily, 18> kFamilies = {{
    {.model_type = "llama",
     .architectures = {"LlamaForCausalLM", ""},
     .summary = kLlamaLayers,
     .read = read_llama,
     .write = write_llama},
    {.model_type = "mistral",
     .architectures = {"MistralForCausalLM", ""},
     .summary = "Llama's layers, a sliding window",
     .read = read_mistral,
     .write = write_mistral},
    {.model_type = "qwen2",
     .architectures = {"Qwen2ForCausalLM", ""},
     .summary = "Llama's layers, biased Q, K, V",
     .read = read_qwen2,
     .write = write_nothing},
    {.model_type = "qwen3",
     .architectures = {"Qwen3ForCausalLM", ""},
     .summary = "Llama's layers, query-key norms",
     .read = read_qwen3,
     .write = write_llama},
    {.model_type = "nemotron",
     .architectures = {"NemotronForCausalLM", ""},
     .summary = "LayerNorm, squared-ReLU MLP of two matrices",
     .read = read_nemotron,
     .write = write_nemotron},
    {.model_type = "gpt2",
     .architectures = {"GPT2LMHeadModel", ""},
     .summary = "LayerNorm, learned positions, GELU MLP, biases",
     .read = read_gpt2,
     .write = write_nothing},
    {.model_type = "bloom",
     .architectures = {"BloomForCausalLM", ""},
     .summary = "GPT-2's layers with ALiBi, no position embedding",
     .read = read_bloom,
     .write = write_nothing},
    {.model_type = "mixtral",
     .architectures = {"MixtralForCausalLM", ""},
     .summary = "Llama's attention, experts",
     .expert_key = "num_local_experts",
     .read = read_mixtral,
     .write = write_mixtral},
    {.model_type = "qwen2_moe",
     .architectures = {"Qwen2MoeForCausalLM", ""},
     .summary = "Qwen2's attention, experts and a gated shared expert",
     .expert_key = "num_experts",
     .read = read_qwen2_moe,
     .write = write_qwen_moe_experts},
    {.model_type = "qwen3_moe",
     .architectures = {"Qwen3MoeForCausalLM", ""},
     .summary = "Qwen3's attention, experts",
     .expert_key = "num_experts",
     .read = read_qwen3_moe,
     .write = write_qwen3_moe},
    {.model_type = "deepseek_v2",
     .architectures = {"DeepseekV2ForCausalLM", ""},
     .summary = "DeepSeek-V3's layers, without multi-token prediction",
     .expert_key = "n_routed_experts",
     .latent_attention = true,
     .read = read_deepseek_v3,
     .write = write_deepseek_v3},
    {.model_type = "deepseek_v3",
     .architectures = {"DeepseekV3ForCausalLM", ""},
     .summary = "latent attention, dense first layers, shared and routed experts, multi-token prediction",
     .expert_key = "n_routed_experts",
     .latent_attention = true,
     .read = read_deepseek_v3,
     .write = write_deepseek_v3},
    {.model_type = "kimi_k2",
     .architectures = {"DeepseekV3ForCausalLM", ""},
     .summary = "DeepSeek-V3's layers",
     .expert_key = "n_routed_experts",
     .latent_attention = true,
     .read = read_deepseek_v3,
     .write = write_deepseek_v3},
    {.model_type = "glm4_moe",
     .architectures = {"Glm4MoeForCausalLM", ""},
     .summary = "biased Q, K, V, partial rotary positions, DeepSeek-V3's experts and multi-token prediction",
     .expert_key = "n_routed_experts",
     .read = read_glm4_moe,
     .write = write_glm4_moe},
    {.model_type = "gpt_oss",
     .architectures = {"GptOssForCausalLM", ""},
     .summary = "biased attention with sinks, alternating sliding window, biased experts",
     .expert_key = "num_local_experts",
     .read = read_gpt_oss,
     .write = write_gpt_oss},
    {.model_type = "minimax_m2",
     .architectures = {"MiniMaxM2ForCausalLM", ""},
     .summary = "query and key norms across heads, partial rotary positions, experts, multi-token prediction",
     .expert_key = "num_local_experts",
     .read = read_minimax_m2,
     .write = write_minimax_m2},
    {.model_type = "llama4",
     .architectures = {"Llama4ForConditionalGeneration", "Llama4ForCausalLM"},
     .summary = "the text model (text_config): chunked attention, interleaved experts and a shared expert",
     .expert_key = "num_local_experts",
     .read = read_llama4,
     .write = write_llama4},
    {.model_type = "llama4_text",
     .architectures = {"Llama4ForCausalLM", ""},
     .summary = "Llama 4's text model",
     .expert_key = "num_local_experts",
     .read = read_llama4,
     .write = write_llama4},
}};

std::span<const ModelFamily> rows() {
  return kFamilies;
}

}  // namespace

std::span<const ModelFamily> model_families() {
  return rows();
}

const ModelFamily* family_named(std::string_view model_type) {
  for (const ModelFamily& f : rows()) {
    if (f.model_type == model_type) return &f;
  }
  return nullptr;
}

std::string modelled_families() {
  std::string text = "pipeplan models decoder-only transformers of model_type ";
  bool first = true;
  for (const ModelFamily& f : rows()) {
    text += (first ? "" : ", ") + std::string(f.model_type) + " (" + std::string(f.summary) + ")";
    first = false;
  }
  return text;
}

}  // namespace pipeplan
