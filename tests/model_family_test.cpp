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

const std::string kModelled =
    "pipeplan models decoder-only transformers: model_type llama, mistral, qwen2 (Llama-style layers), gpt2, "
    "mixtral or qwen2_moe (Llama-style layers with experts), architectures LlamaForCausalLM, MistralForCausalLM, "
    "Qwen2ForCausalLM, GPT2LMHeadModel, MixtralForCausalLM or Qwen2MoeForCausalLM";

}  // namespace

TEST_CASE("a model_type or architecture pipeplan does not model is refused, naming it and what is modelled") {
  CHECK(error_for(R"(, "model_type": "t5")") == "c.json: model_type: 't5' is not modelled; " + kModelled);
  CHECK(error_for(R"(, "model_type": "llama", "architectures": ["LlamaForCausalLM", "T5ForConditionalGeneration"])") ==
        "c.json: architectures[1]: \"T5ForConditionalGeneration\" is not modelled; " + kModelled);
  CHECK(error_for(R"(, "model_type": 5)") == "c.json: model_type: expected a string, got 5");
  for (const char* type : {"llama", "mistral", "qwen2"}) {
    CHECK(model_config_from_json(Json::parse("{" + kShape + R"(, "model_type": ")" + type + "\"}"), "c.json").name ==
          type);
  }
}

TEST_CASE("Mixtral's and Qwen-MoE's experts are read; experts under any other name are refused") {
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
  CHECK(error_for(R"(, "model_type": "llama", "num_experts": 60)") ==
        "c.json: num_experts: 60 experts under model_type 'llama': pipeplan models the experts of model_type mixtral "
        "(num_local_experts) and qwen2_moe (num_experts) only, and would plan this one as a dense model of the wrong "
        "size; " +
            kModelled);
  CHECK(error_for(R"(, "n_routed_experts": 256)")
            .starts_with("c.json: n_routed_experts: 256 experts under model_type ''"));
  CHECK(error_for(R"(, "model_type": "mixtral", "num_experts": 8)").starts_with("c.json: num_experts: 8 experts"));
  // DeepSeek-V3's latent attention is named, before its unknown model_type.
  CHECK(
      error_for(R"(, "model_type": "deepseek_v3", "kv_lora_rank": 512, "q_lora_rank": 1536, "n_routed_experts": 256)")
          .starts_with("c.json: kv_lora_rank: 512: DeepSeek's multi-head latent attention (q_lora_rank, kv_lora_rank) "
                       "is not modelled"));
  CHECK(error_for(R"(, "model_type": "qwen3_moe")") == "c.json: model_type: 'qwen3_moe' is not modelled; " + kModelled);
  // What a mixture of experts needs, and the dense layers pipeplan's alike layers cannot hold.
  CHECK(error_for(R"(, "model_type": "mixtral", "num_local_experts": 8)") ==
        "c.json: missing 'num_experts_per_tok' (a positive integer), which a mixture of experts needs");
  CHECK(error_for(R"(, "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 9)") ==
        "c.json: num_experts_per_tok: 9 experts per token, more than the 8 there are");
  CHECK(error_for(qwen + R"(, "decoder_sparse_step": 2)")
            .starts_with("c.json: decoder_sparse_step: 2: only one layer in 2 has experts"));
  CHECK(error_for(qwen + R"(, "mlp_only_layers": [0])").starts_with("c.json: mlp_only_layers: [0]: dense layers"));
  // One expert, or none, is a dense layer.
  CHECK(model_config_from_json(Json::parse("{" + kShape + R"(, "num_experts": 1})"), "c.json").hidden == 64);
  CHECK_FALSE(model_config_from_json(
                  Json::parse("{" + kShape + R"(, "model_type": "mixtral", "num_local_experts": 1})"), "c.json")
                  .is_moe());
}
