// Models pipeplan does not model are refused by name (docs/costs.md, "Model input").
#include <doctest/doctest.h>

#include "estimate/model_config.hpp"
#include "io/json_text.hpp"
#include "io/model_config_json.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

const std::string kShape =
    R"("hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10)";

std::string error_for(const std::string& extra) {
  return test::error_of([&] { (void)model_config_from_json(Json::parse("{" + kShape + extra + "}"), "c.json"); });
}

// The start of the list of what is modelled, which every refusal ends with.
const std::string kModelled = "pipeplan models decoder-only transformers of model_type llama (";

bool ends_with_modelled(const std::string& error, const std::string& start) {
  return error.starts_with(start) && error.find("; " + kModelled) != std::string::npos &&
         error.find("deepseek_v3 (latent attention") != std::string::npos;
}

}  // namespace

TEST_CASE("a model_type or architecture pipeplan does not model is refused, naming it and what is modelled") {
  CHECK(ends_with_modelled(error_for(R"(, "model_type": "t5")"), "c.json: model_type: 't5' is not modelled; "));
  CHECK(ends_with_modelled(
      error_for(R"(, "model_type": "llama", "architectures": ["LlamaForCausalLM", "T5ForConditionalGeneration"])"),
      "c.json: architectures[1]: \"T5ForConditionalGeneration\" is not modelled; "));
  CHECK(error_for(R"(, "model_type": 5)") == "c.json: model_type: expected a string, got 5");
  for (const char* type : {"llama", "mistral", "qwen2"}) {
    CHECK(model_config_from_json(Json::parse("{" + kShape + R"(, "model_type": ")" + type + "\"}"), "c.json").name ==
          type);
  }
}

TEST_CASE("Mixtral's and Qwen-MoE's experts are read, experts under any other name are refused") {
  const ModelConfig mixtral = read_model_config_file(PIPEPLAN_TEST_DATA "/models/mixtral-8x7b.json");
  CHECK(mixtral.moe.experts == 8);
  CHECK(mixtral.moe.ffn == 14336);  // Mixtral's experts are intermediate_size wide
  const std::string qwen = R"(, "model_type": "qwen2_moe", "num_experts": 60, "num_experts_per_tok": 4,
      "moe_intermediate_size": 32, "shared_expert_intermediate_size": 64)";
  const ModelConfig q = model_config_from_json(Json::parse("{" + kShape + qwen + "}"), "c.json");
  CHECK(q.moe.experts == 60);
  CHECK(q.moe.per_token == 4);
  CHECK(q.moe.ffn == 32);
  CHECK(q.moe.shared_ffn == 64);
  CHECK(q.moe.shared_gate);
  // Experts under a dense family's name, or in DeepSeek's and others' keys, are refused, naming the key.
  CHECK(
      ends_with_modelled(error_for(R"(, "model_type": "llama", "num_experts": 60)"),
                         "c.json: num_experts: 60 experts under model_type 'llama', whose family pipeplan reads its "
                         "experts from no key (a dense family): it would plan this one as a model of the wrong size"));
  CHECK(error_for(R"(, "n_routed_experts": 256)")
            .starts_with("c.json: n_routed_experts: 256 experts under model_type ''"));
  CHECK(error_for(R"(, "model_type": "mixtral", "num_experts": 8)").starts_with("c.json: num_experts: 8 experts"));
  // Latent attention under a family without it is named.
  CHECK(error_for(R"(, "model_type": "llama", "kv_lora_rank": 512)")
            .starts_with("c.json: kv_lora_rank: 512: multi-head latent attention (q_lora_rank, kv_lora_rank) under "
                         "model_type 'llama'"));
  // What a mixture of experts needs, and the dense layers listed by index that pipeplan does not model.
  CHECK(error_for(R"(, "model_type": "mixtral", "num_local_experts": 8)") ==
        "c.json: missing 'num_experts_per_tok' or 'experts_per_token' (a positive integer)");
  CHECK(error_for(R"(, "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 9)") ==
        "c.json: num_experts_per_tok: 9 experts per token, more than the 8 there are");
  CHECK(error_for(qwen + R"(, "mlp_only_layers": [0])").starts_with("c.json: mlp_only_layers: [0]: dense layers"));
  // decoder_sparse_step 2: every second layer has experts, the others a dense MLP.
  const ModelConfig every_second =
      model_config_from_json(Json::parse("{" + kShape + qwen + R"(, "decoder_sparse_step": 2})"), "c.json");
  CHECK(every_second.moe_layer_step == 2);
  // One expert, or none, is a dense layer.
  CHECK(model_config_from_json(Json::parse("{" + kShape + R"(, "num_experts": 1})"), "c.json").hidden == 64);
  CHECK_FALSE(model_config_from_json(
                  Json::parse("{" + kShape + R"(, "model_type": "mixtral", "num_local_experts": 1})"), "c.json")
                  .is_moe());
}
