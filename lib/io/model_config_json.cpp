#include "io/model_config_json.hpp"

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string_view>

#include "io/config_keys.hpp"
#include "io/family_of.hpp"
#include "io/json_fields.hpp"
#include "io/model_family.hpp"
#include "model/error.hpp"
#include "model/finite.hpp"

namespace pipeplan {

namespace {

constexpr int kMaxWidth = kMaxConfigWidth;
constexpr int kMaxLayers = 10000;
constexpr int kMaxVocab = 16 << 20;

// A dropout probability above zero under any of `names`.
bool has_dropout(const Json& document, std::initializer_list<std::string_view> names, const JsonPath& root) {
  std::string_view found;
  const Json* v = first_key(document, names, root, found);
  if (v == nullptr) return false;
  if (!v->is_number() || !finite_within(v->get<double>(), 0.0, 1.0) || v->get<double>() == 1.0) {
    fail_field(root.key(found), "a dropout probability from 0 to below 1", *v);
  }
  return v->get<double>() > 0.0;
}

// Llama 4 publishes its text model's shape under text_config, beside the vision encoder's.
const Json& text_model(const Json& document, const JsonPath& root, JsonPath& at) {
  const Json* text = optional_member(document, "text_config", root);
  if (text == nullptr || text->is_null()) return document;
  if (!text->is_object()) fail_field(root.key("text_config"), "an object", *text);
  at = root.key("text_config");
  return *text;
}

void check_shape(const ModelConfig& m, const JsonPath& root) {
  if (m.explicit_head_dim == 0 && m.hidden % m.heads != 0) {
    throw Error(root.where() + ": the attention heads (" + std::to_string(m.heads) + ") must divide the hidden size (" +
                std::to_string(m.hidden) + ")");
  }
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
    throw Error(root.where() + ": num_key_value_heads (" + std::to_string(m.kv_heads) +
                ") must divide num_attention_heads (" + std::to_string(m.heads) + ")");
  }
  const bool dense_layers = !m.is_moe() || m.first_dense_layers > 0 || m.moe_layer_step > 1;
  if (dense_layers && m.ffn <= 0) throw Error(root.where() + ": missing 'intermediate_size' (a positive integer)");
  if (m.is_moe() && m.moe.ffn <= 0) {
    throw Error(root.where() + ": missing the experts' width ('intermediate_size' or 'moe_intermediate_size')");
  }
}

// A model made in code names no family: the one whose keys describe its shape.
std::string_view default_family(const ModelConfig& m) {
  if (!m.gated_mlp) return "gpt2";
  if (!m.is_moe()) return "llama";
  return m.moe.shared_ffn > 0 || m.moe.ffn != m.ffn ? "qwen2_moe" : "mixtral";
}

}  // namespace

ModelConfig model_config_from_json(const Json& document, const std::string& source) {
  JsonPath top(source);
  if (!document.is_object()) fail_field(top, "a config.json object", document);
  const ModelFamily& family = family_of(document, top);
  JsonPath root = top;
  const Json& d = text_model(document, top, root);
  if (&d != &document) (void)family_of(d, root);  // the nested model's keys are checked too
  ModelConfig m;
  m.family = std::string(family.model_type);
  m.name = std::filesystem::path(source).stem().string();
  if (const Json* type = optional_member(document, "model_type", top); type != nullptr && type->is_string()) {
    m.name = type->get<std::string>();
  }
  // GPT-2 names its fields n_embd, n_layer, n_head; its MLP is 4h wide unless n_inner says.
  const bool gpt2 = family.model_type == "gpt2";
  const bool bloom = family.model_type == "bloom";
  m.hidden = required_key(d, {"hidden_size", "n_embd", "n_embed"}, root, 1, kMaxWidth);
  m.layers = required_key(d, {"num_hidden_layers", "n_layer"}, root, 1, kMaxLayers);
  m.heads = required_key(d, {"num_attention_heads", "n_head"}, root, 1, kMaxWidth);
  m.vocab = required_key(d, {"vocab_size"}, root, 1, kMaxVocab);
  m.ffn = optional_key(d, {"intermediate_size", "n_inner"}, root, 1, kMaxWidth, gpt2 ? 4 * m.hidden : 0);
  m.kv_heads = optional_key(d, {"num_key_value_heads"}, root, 1, kMaxWidth, m.heads);
  if (const int hd = optional_key(d, {"head_dim"}, root, 1, kMaxWidth, 0);
      hd > 0 && std::int64_t{hd} * m.heads != m.hidden) {
    m.explicit_head_dim = hd;
  }
  m.positions = gpt2 ? optional_key(d, {"n_positions", "max_position_embeddings"}, root, 1, kMaxWidth, 0) : 0;
  m.tied_embeddings = optional_flag(d, "tie_word_embeddings", root, gpt2 || bloom);
  m.attention_dropout = has_dropout(d, {"attn_pdrop", "attention_dropout"}, root);
  m.hidden_dropout = has_dropout(d, {"resid_pdrop", "hidden_dropout"}, root);
  family.read(d, root, m);
  check_shape(m, root);
  return m;
}

Json model_config_to_json(const ModelConfig& m) {
  Json j;
  const ModelFamily* family = family_named(m.family.empty() ? default_family(m) : m.family);
  if (family == nullptr) throw Error("model family '" + m.family + "' is not one pipeplan writes");
  j["model_type"] = std::string(family->model_type);
  j["architectures"] = Json::array({std::string(family->architectures[0])});
  if (family->model_type == "gpt2") {  // GPT-2's names, its learned positions and its dropouts
    j["n_embd"] = m.hidden;
    j["n_inner"] = m.ffn;
    j["n_layer"] = m.layers;
    j["n_head"] = m.heads;
    j["num_key_value_heads"] = m.kv_heads;
    j["vocab_size"] = m.vocab;
    if (m.positions > 0) j["n_positions"] = m.positions;
    j["tie_word_embeddings"] = m.tied_embeddings;
    j["attn_pdrop"] = m.attention_dropout ? 0.1 : 0.0;
    j["resid_pdrop"] = m.hidden_dropout ? 0.1 : 0.0;
    return j;
  }
  j["hidden_size"] = m.hidden;
  if (m.ffn > 0) j["intermediate_size"] = m.ffn;
  j["num_hidden_layers"] = m.layers;
  j["num_attention_heads"] = m.heads;
  j["num_key_value_heads"] = m.kv_heads;
  if (m.explicit_head_dim > 0) j["head_dim"] = m.explicit_head_dim;
  j["vocab_size"] = m.vocab;
  j["tie_word_embeddings"] = m.tied_embeddings;
  j["attention_dropout"] = m.attention_dropout ? 0.1 : 0.0;
  j["hidden_dropout"] = m.hidden_dropout ? 0.1 : 0.0;
  family->write(m, j);
  return j;
}

ModelConfig read_model_config_file(const std::string& path) {
  return model_config_from_json(parse_json(read_text_file(path), path), path);
}

}  // namespace pipeplan
