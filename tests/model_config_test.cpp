#include <doctest/doctest.h>

#include "estimate/model_config.hpp"
#include "estimate/piece_work.hpp"
#include "io/json_text.hpp"
#include "io/model_config_json.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

ModelConfig config(const std::string& text) {
  return model_config_from_json(parse_json(text, "c.json"), "c.json");
}

std::string error_for(const std::string& text) {
  return test::error_of([&] { (void)config(text); });
}

}  // namespace

TEST_CASE("parameter counts match the published ones") {
  // Hugging Face's num_parameters() for each checkpoint (the model cards round them: 124M,
  // 6.74B / "7B", 8.03B, 70.6B). GPT-2 ties its head to the embedding and learns positions.
  CHECK(model_parameters(read_model_config_file(PIPEPLAN_TEST_DATA "/models/gpt2.json")) == 124'439'808);
  CHECK(model_parameters(read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/llama-2-7b.json")) ==
        6'738'415'616);
  CHECK(model_parameters(read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/llama-3-8b.json")) ==
        8'030'261'248);
  CHECK(model_parameters(read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/llama-3-70b.json")) ==
        70'553'706'496);
}

TEST_CASE("Llama keys and GPT-2 keys read into the same shape") {
  ModelConfig llama = read_model_config_file(PIPEPLAN_TEST_DATA "/models/tiny-llama.json");
  CHECK(llama.name == "llama");
  CHECK(llama.hidden == 64);
  CHECK(llama.ffn == 128);
  CHECK(llama.kv_hidden() == 32);  // 2 key-value heads of 64 / 4 = 16
  CHECK(llama.gated_mlp);
  CHECK_FALSE(llama.tied_embeddings);
  CHECK_FALSE(llama.attention_dropout);
  ModelConfig gpt = read_model_config_file(PIPEPLAN_TEST_DATA "/models/gpt2.json");
  CHECK(gpt.hidden == 768);
  CHECK(gpt.ffn == 4 * 768);  // n_inner absent: 4h
  CHECK(gpt.kv_heads == 12);
  CHECK(gpt.positions == 1024);
  CHECK(gpt.tied_embeddings);
  CHECK_FALSE(gpt.gated_mlp);
  CHECK(gpt.attention_dropout);
  CHECK(gpt.hidden_dropout);
}

TEST_CASE("bad configs name the key and what was expected") {
  const std::string base = R"("hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 10)";
  CHECK(error_for("{" + base + "}") == "c.json: missing 'num_attention_heads' or 'n_head' (a positive integer)");
  CHECK(error_for("{" + base + R"(, "num_attention_heads": 0})") ==
        "c.json: num_attention_heads: expected an integer from 1 to 1048576, got 0");
  CHECK(error_for("{" + base + R"(, "num_attention_heads": 5})") ==
        "c.json: the attention heads (5) must divide the hidden size (64)");
  CHECK(error_for("{" + base + R"(, "num_attention_heads": 4, "num_key_value_heads": 3})") ==
        "c.json: num_key_value_heads (3) must divide num_attention_heads (4)");
  CHECK(error_for("{" + base + R"(, "num_attention_heads": 4, "tie_word_embeddings": "yes"})") ==
        "c.json: tie_word_embeddings: expected true or false, got \"yes\"");
  CHECK(error_for("[1]") == "c.json: expected a config.json object, got [1]");
  CHECK(error_for(R"({"hidden_size": 64.5})").rfind("c.json: hidden_size: expected an integer", 0) == 0);
}

TEST_CASE("a model written as config keys reads back to the same shape") {
  for (const char* file : {"/models/gpt2.json", "/models/tiny-llama.json", "/models/tiny-gpt.json",
                           "/models/mixtral-8x7b.json", "/models/tiny-qwen-moe.json"}) {
    const ModelConfig m = read_model_config_file(std::string(PIPEPLAN_TEST_DATA) + file);
    const ModelConfig back = model_config_from_json(model_config_to_json(m), "back.json");
    CHECK(back.hidden == m.hidden);
    CHECK(back.ffn == m.ffn);
    CHECK(back.layers == m.layers);
    CHECK(back.heads == m.heads);
    CHECK(back.kv_heads == m.kv_heads);
    CHECK(back.vocab == m.vocab);
    CHECK(back.positions == m.positions);
    CHECK(back.tied_embeddings == m.tied_embeddings);
    CHECK(back.gated_mlp == m.gated_mlp);
    CHECK(back.attention_dropout == m.attention_dropout);
    CHECK(back.hidden_dropout == m.hidden_dropout);
    CHECK(back.moe.experts == m.moe.experts);
    CHECK(back.moe.per_token == m.moe.per_token);
    CHECK(back.moe.ffn == m.moe.ffn);
    CHECK(back.moe.shared_ffn == m.moe.shared_ffn);
    CHECK(back.moe.shared_gate == m.moe.shared_gate);
    CHECK(model_parameters(back) == model_parameters(m));
  }
}
