#include "io/model_config_json.hpp"

#include <filesystem>
#include <initializer_list>
#include <string_view>

#include "io/json_fields.hpp"
#include "io/model_family.hpp"
#include "io/moe_config_json.hpp"
#include "model/error.hpp"

namespace pipeplan {

namespace {

// Wide enough for any model people train, narrow enough that every product of two of them and
// the sequence fits in 64 bits (docs/costs.md).
constexpr int kMaxWidth = 1 << 20;
constexpr int kMaxLayers = 10000;
constexpr int kMaxVocab = 16 << 20;

// The first of `names` that the document has, or nullptr.
const Json* first_of(const Json& document, std::initializer_list<std::string_view> names, const JsonPath& root,
                     std::string_view& found) {
  for (std::string_view name : names) {
    if (const Json* v = optional_member(document, name, root); v != nullptr && !v->is_null()) {
      found = name;
      return v;
    }
  }
  return nullptr;
}

std::string either(std::initializer_list<std::string_view> names) {
  std::string text;
  for (std::string_view n : names) text += (text.empty() ? "'" : "' or '") + std::string(n);
  return text + "'";
}

int required_int(const Json& document, std::initializer_list<std::string_view> names, const JsonPath& root, int max) {
  std::string_view found;
  const Json* v = first_of(document, names, root, found);
  if (v == nullptr) throw Error(root.where() + ": missing " + either(names) + " (a positive integer)");
  return read_int(*v, root.key(found), 1, max);
}

int optional_int(const Json& document, std::initializer_list<std::string_view> names, const JsonPath& root, int max,
                 int fallback) {
  std::string_view found;
  const Json* v = first_of(document, names, root, found);
  return v == nullptr ? fallback : read_int(*v, root.key(found), 1, max);
}

bool optional_bool(const Json& document, std::string_view name, const JsonPath& root, bool fallback) {
  const Json* v = optional_member(document, name, root);
  if (v == nullptr || v->is_null()) return fallback;
  if (!v->is_boolean()) fail_field(root.key(name), "true or false", *v);
  return v->get<bool>();
}

// A dropout probability above zero under any of `names`.
bool has_dropout(const Json& document, std::initializer_list<std::string_view> names, const JsonPath& root) {
  std::string_view found;
  const Json* v = first_of(document, names, root, found);
  if (v == nullptr) return false;
  if (!v->is_number() || !(v->get<double>() >= 0.0 && v->get<double>() < 1.0)) {
    fail_field(root.key(found), "a dropout probability from 0 to below 1", *v);
  }
  return v->get<double>() > 0.0;
}

}  // namespace

ModelConfig model_config_from_json(const Json& document, const std::string& source) {
  JsonPath root(source);
  if (!document.is_object()) fail_field(root, "a config.json object", document);
  check_modelled(document, root);
  ModelConfig m;
  m.name = std::filesystem::path(source).stem().string();
  if (const Json* type = optional_member(document, "model_type", root); type != nullptr && type->is_string()) {
    m.name = type->get<std::string>();
  }
  // GPT-2 names its fields n_embd, n_layer, n_head; its MLP is GELU with biases and LayerNorm.
  const bool gpt2_style = optional_member(document, "n_embd", root) != nullptr || m.name == "gpt2";
  m.hidden = required_int(document, {"hidden_size", "n_embd"}, root, kMaxWidth);
  m.layers = required_int(document, {"num_hidden_layers", "n_layer"}, root, kMaxLayers);
  m.heads = required_int(document, {"num_attention_heads", "n_head"}, root, kMaxWidth);
  m.vocab = required_int(document, {"vocab_size"}, root, kMaxVocab);
  if (gpt2_style) {
    m.ffn = optional_int(document, {"n_inner", "intermediate_size"}, root, kMaxWidth, 4 * m.hidden);
  } else {
    m.ffn = required_int(document, {"intermediate_size"}, root, kMaxWidth);
  }
  m.moe = read_expert_shape(document, root, m.name, m.ffn);
  m.kv_heads = optional_int(document, {"num_key_value_heads"}, root, kMaxWidth, m.heads);
  m.positions = gpt2_style ? optional_int(document, {"n_positions", "max_position_embeddings"}, root, kMaxWidth, 0) : 0;
  m.tied_embeddings = optional_bool(document, "tie_word_embeddings", root, gpt2_style);
  m.gated_mlp = !gpt2_style;
  m.biases = gpt2_style;
  m.layer_norm = gpt2_style;
  m.attention_dropout = has_dropout(document, {"attn_pdrop", "attention_dropout"}, root);
  m.hidden_dropout = has_dropout(document, {"resid_pdrop", "hidden_dropout"}, root);
  if (m.hidden % m.heads != 0) {
    throw Error(root.where() + ": the attention heads (" + std::to_string(m.heads) + ") must divide the hidden size (" +
                std::to_string(m.hidden) + ")");
  }
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
    throw Error(root.where() + ": num_key_value_heads (" + std::to_string(m.kv_heads) +
                ") must divide num_attention_heads (" + std::to_string(m.heads) + ")");
  }
  return m;
}

Json model_config_to_json(const ModelConfig& m) {
  Json j;
  if (!m.gated_mlp) {  // GPT-2's names, its learned positions and its dropouts
    j["model_type"] = "gpt2";
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
  j["model_type"] = modelled_model_type(m.name) && m.name != "gpt2" ? m.name : std::string("llama");
  j["hidden_size"] = m.hidden;
  j["intermediate_size"] = m.ffn;
  j["num_hidden_layers"] = m.layers;
  j["num_attention_heads"] = m.heads;
  j["num_key_value_heads"] = m.kv_heads;
  j["vocab_size"] = m.vocab;
  j["tie_word_embeddings"] = m.tied_embeddings;
  j["attention_dropout"] = m.attention_dropout ? 0.1 : 0.0;
  j["hidden_dropout"] = m.hidden_dropout ? 0.1 : 0.0;
  write_expert_shape(m, j);
  return j;
}

ModelConfig read_model_config_file(const std::string& path) {
  return model_config_from_json(parse_json(read_text_file(path), path), path);
}

}  // namespace pipeplan
