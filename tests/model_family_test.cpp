// Models pipeplan does not model are refused by name (docs/costs.md, "Model input").
#include <doctest/doctest.h>

#include "io/json_text.hpp"
#include "plan/model_config.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

const std::string kShape =
    R"("hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10)";

std::string error_for(const std::string& extra) {
  return test::error_of([&] { (void)model_config_from_json(Json::parse("{" + kShape + extra + "}"), "c.json"); });
}

const std::string kModelled =
    "pipeplan models dense decoder-only transformers: model_type llama, mistral, qwen2 (Llama-style layers) or gpt2, "
    "architectures LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM or GPT2LMHeadModel";

}  // namespace

TEST_CASE("a model_type or architecture pipeplan does not model is refused, naming it and what is modelled") {
  CHECK(error_for(R"(, "model_type": "t5")") == "c.json: model_type: 't5' is not modelled; " + kModelled);
  CHECK(error_for(R"(, "model_type": "llama", "architectures": ["LlamaForCausalLM", "T5ForConditionalGeneration"])") ==
        "c.json: architectures[1]: \"T5ForConditionalGeneration\" is not modelled; " + kModelled);
  CHECK(error_for(R"(, "model_type": 5)") == "c.json: model_type: expected a string, got 5");
  for (const char* type : {"llama", "mistral", "qwen2"}) {
    CHECK(model_config_from_json(Json::parse("{" + kShape + R"(, "model_type": ")" + type + "\"}"), "c.json").name == type);
  }
}

TEST_CASE("a mixture of experts is never planned as a dense model") {
  const std::string path = PIPEPLAN_TEST_DATA "/models/mixtral-8x7b.json";  // mistralai/Mixtral-8x7B-v0.1's keys
  CHECK(test::error_of([&] { (void)read_model_config_file(path); }) ==
        path + ": num_local_experts: 8 experts: a mixture of experts, which pipeplan does not model (it would plan it as "
               "a dense model of the wrong size); " + kModelled);
  // Experts under a dense family's name, in Qwen-MoE's and DeepSeek's keys, are refused too.
  CHECK(error_for(R"(, "model_type": "llama", "num_experts": 60)").starts_with("c.json: num_experts: 60 experts"));
  CHECK(error_for(R"(, "n_routed_experts": 256)").starts_with("c.json: n_routed_experts: 256 experts"));
  // One expert, or none, is a dense layer.
  CHECK(model_config_from_json(Json::parse("{" + kShape + R"(, "num_experts": 1})"), "c.json").hidden == 64);
}
