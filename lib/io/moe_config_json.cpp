#include "io/moe_config_json.hpp"

#include <string>

#include "model/error.hpp"

namespace pipeplan {

namespace {

constexpr int kMaxExperts = 1 << 16;
constexpr int kMaxWidth = 1 << 20;  // as model_config's widths

int required(const Json& document, std::string_view key, const JsonPath& root, int min, int max) {
  const Json* v = optional_member(document, key, root);
  if (v == nullptr || v->is_null()) {
    throw Error(root.where() + ": missing '" + std::string(key) +
                "' (a positive integer), which a mixture of experts needs");
  }
  return read_int(*v, root.key(key), min, max);
}

int optional(const Json& document, std::string_view key, const JsonPath& root, int min, int max, int fallback) {
  const Json* v = optional_member(document, key, root);
  return v == nullptr || v->is_null() ? fallback : read_int(*v, root.key(key), min, max);
}

// Qwen-MoE can interleave dense layers (every decoder_sparse_step-th layer sparse, or those
// listed in mlp_only_layers dense). pipeplan's layers are all alike, so such a config is refused.
void check_all_sparse(const Json& document, const JsonPath& root) {
  if (const int step = optional(document, "decoder_sparse_step", root, 1, kMaxWidth, 1); step != 1) {
    throw Error(root.key("decoder_sparse_step").where() + ": " + std::to_string(step) + ": only one layer in " +
                std::to_string(step) +
                " has experts; pipeplan models a mixture of experts whose layers all "
                "have them (decoder_sparse_step 1)");
  }
  if (const Json* dense = optional_member(document, "mlp_only_layers", root);
      dense != nullptr && !(dense->is_null() || (dense->is_array() && dense->empty()))) {
    throw Error(root.key("mlp_only_layers").where() + ": " + dense->dump() +
                ": dense layers among the sparse ones; pipeplan models a mixture of experts whose layers all have "
                "them (mlp_only_layers empty)");
  }
}

}  // namespace

ExpertShape read_expert_shape(const Json& document, const JsonPath& root, std::string_view model_type, int dense_ffn) {
  ExpertShape e;
  if (model_type == "mixtral") {
    e.experts = optional(document, "num_local_experts", root, 0, kMaxExperts, 0);
    e.ffn = dense_ffn;  // Mixtral's experts are its intermediate_size-wide SwiGLU MLPs
  } else if (model_type == "qwen2_moe") {
    e.experts = optional(document, "num_experts", root, 0, kMaxExperts, 0);
    if (e.experts > 1) {
      check_all_sparse(document, root);
      e.ffn = required(document, "moe_intermediate_size", root, 1, kMaxWidth);
      e.shared_ffn = optional(document, "shared_expert_intermediate_size", root, 0, kMaxWidth, 0);
      e.shared_gate = e.shared_ffn > 0;  // Qwen2MoeSparseMoeBlock: sigmoid(shared_expert_gate(x))
    }
  }
  if (e.experts <= 1) return {};  // one expert, or none, is a dense MLP
  e.per_token = required(document, "num_experts_per_tok", root, 1, kMaxExperts);
  if (e.per_token > e.experts) {
    throw Error(root.key("num_experts_per_tok").where() + ": " + std::to_string(e.per_token) +
                " experts per token, more than the " + std::to_string(e.experts) + " there are");
  }
  return e;
}

void write_expert_shape(const ModelConfig& m, Json& j) {
  if (!m.is_moe()) return;
  j["num_experts_per_tok"] = m.moe.per_token;
  if (m.moe.shared_ffn == 0 && !m.moe.shared_gate && m.moe.ffn == m.ffn) {
    j["model_type"] = "mixtral";
    j["num_local_experts"] = m.moe.experts;
    return;
  }
  j["model_type"] = "qwen2_moe";
  j["num_experts"] = m.moe.experts;
  j["moe_intermediate_size"] = m.moe.ffn;
  j["shared_expert_intermediate_size"] = m.moe.shared_ffn;
}

}  // namespace pipeplan
