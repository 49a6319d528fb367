// The families of 2025 read from their Hub config.json files (tests/data/models/, key values as
// the Hub publishes them): parameter counts derived by hand from each config, their layer kinds,
// and a write and read back that keeps every shape (docs/costs.md, "Model input").
#include <doctest/doctest.h>

#include "estimate/analytic_profile.hpp"
#include "estimate/layer_kinds.hpp"
#include "estimate/moe_work.hpp"
#include "estimate/piece_work.hpp"
#include "io/json_text.hpp"
#include "io/model_config_json.hpp"
#include "io/model_family.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

ModelConfig model(const char* file) {
  return read_model_config_file(std::string(PIPEPLAN_TEST_DATA "/models/") + file);
}

std::int64_t expert_layers(const ModelConfig& m) {
  std::int64_t n = 0;
  for (int i = 0; i < m.layers; ++i) n += layer_kind(m, i).experts ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("DeepSeek-V3: latent attention, 3 dense layers, 58 of experts, MTP, 671B of which 37B active") {
  const ModelConfig m = model("deepseek-v3.json");
  CHECK(m.family == "deepseek_v3");
  CHECK(m.latent.enabled());
  CHECK(m.mtp_layers == 1);
  CHECK_FALSE(layer_kind(m, 2).experts);
  CHECK(layer_kind(m, 3).experts);
  CHECK(expert_layers(m) == 58);
  // By hand from the config (DeepSeek-V2 report 2.1 for the attention's products):
  // W_DQ h x 1536, W_UQ 1536 x 128(128 + 64), W_DKV+KR h x (512 + 64), W_UKV 512 x 128(128 + 128),
  // W_O 128·128 x h, the latents' norms 1536 + 512 and the layer's two norms 2h.
  const std::int64_t h = 7168;
  const std::int64_t attention = h * 1536 + 1536 * 128 * 192 + h * 576 + 512 * 128 * 256 + 128 * 128 * h + 2048 + 2 * h;
  const std::int64_t dense = attention + 3 * h * 18432;
  // 256 routed experts and one shared, 3·h·2048 each, and the router h x 256.
  const std::int64_t expert = 3 * h * 2048;
  const std::int64_t sparse = attention + 257 * expert + h * 256;
  const std::int64_t outside = 2 * 129280 * h + h;  // embedding, head (untied), final norm
  CHECK(model_parameters(m) == 3 * dense + 58 * sparse + outside);
  CHECK(model_parameters(m) == 671'026'404'352);  // the 671B DeepSeek publishes
  CHECK(active_parameters(m) == model_parameters(m) - 58 * (256 - 8) * expert);
  CHECK(double(active_parameters(m)) == doctest::Approx(37.55e9).epsilon(0.001));  // "37B activated"
  // The MTP module sits on the last stage with the shared embedding: its work is the head's.
  TrainingSettings t;
  ModelConfig without = m;
  without.mtp_layers = 0;
  CHECK(head_work(m, t).params - head_work(without, t).params ==
        129280 * h + sparse + h + (2 * h * h + 2 * h));  // embedding copy, layer, its norm, the 2h x h join
  CHECK(head_work(m, t).f_flops > 2 * head_work(without, t).f_flops);  // the logits twice and a layer
}

TEST_CASE("Qwen3-235B-A22B: head_dim 128 over 64 heads, 128 experts of 1536, top-8, 235B, 22B active") {
  const ModelConfig m = model("qwen3-235b-a22b.json");
  CHECK(m.family == "qwen3_moe");
  CHECK(m.q_hidden() == 64 * 128);  // wider than hidden_size 4096
  CHECK(expert_layers(m) == 94);
  const std::int64_t h = 4096, q = 64 * 128, kv = 4 * 128;
  // Q K V and O, two norms, the query and key norms of 128 each; experts 3·h·1536, router h x 128.
  const std::int64_t layer = h * (q + 2 * kv) + q * h + 2 * h + 2 * 128 + 128 * 3 * h * 1536 + h * 128;
  CHECK(model_parameters(m) == 94 * layer + 2 * 151936 * h + h);
  CHECK(double(model_parameters(m)) == doctest::Approx(235.09e9).epsilon(0.001));
  CHECK(double(active_parameters(m)) == doctest::Approx(22.19e9).epsilon(0.001));
}

TEST_CASE("GPT-OSS-120B: alternating 128-token windows, biased attention and experts, 116.83B") {
  const ModelConfig m = model("gpt-oss-120b.json");
  CHECK(m.family == "gpt_oss");
  CHECK(layer_kind(m, 0).local);
  CHECK_FALSE(layer_kind(m, 1).local);
  CHECK(layer_kinds(m).kinds.size() == 2);
  const std::int64_t h = 2880, q = 64 * 64, kv = 8 * 64;
  // Q K V with biases, O with its bias, a sink a head, two norms; 128 experts with biases (gate
  // and up 2·2880 + down h) and the biased router.
  const std::int64_t attention = h * (q + 2 * kv) + (q + 2 * kv) + q * h + h + 64 + 2 * h;
  const std::int64_t expert = 3 * h * 2880 + 2 * 2880 + h;
  CHECK(model_parameters(m) == 36 * (attention + 128 * expert + h * 128 + 128) + 2 * 201088 * h + h);
  CHECK(model_parameters(m) == 116'829'156'672);  // OpenAI's model card: 116.83B
  // The window skips most of the score blocks at a long sequence: a 4096-token sequence's local
  // layer computes 2 of 32 key blocks a query block at most, against up to 32.
  TrainingSettings t;
  t.seq = 4096;
  const PieceWork local = layer_work(m, t, {true, true}), full = layer_work(m, t, {true, false});
  CHECK(local.f_flops < full.f_flops);
  // Query block i computes min(i + 1, 2) blocks: 1 + 31·2 = 63 of 32·32; full attention 528.
  const double core_full = 2.0 * 4096 * 4096 * (2 * q) * (528.0 / 1024);
  CHECK(full.f_flops - local.f_flops == doctest::Approx(core_full * (1 - 63.0 / 528)));
}

TEST_CASE("GLM-4.7 (glm4_moe): 96 heads of 128 over 5120, half-rotary, 3 dense layers, 160 experts, 352.8B") {
  const ModelConfig m = read_model_config_file(std::string(PIPEPLAN_TEST_DATA "/../../profiles/models/glm-4.7.json"));
  CHECK(m.family == "glm4_moe");
  CHECK(m.q_hidden() == 96 * 128);  // wider than hidden_size 5120
  CHECK(m.rotary_share == 0.5);     // partial_rotary_factor
  CHECK(m.qk_norm);
  CHECK(m.attention_biases);
  CHECK_FALSE(m.latent.enabled());
  CHECK(m.mtp_layers == 1);
  CHECK_FALSE(layer_kind(m, 2).experts);
  CHECK(layer_kind(m, 3).experts);
  CHECK(expert_layers(m) == 89);
  // By hand from the config (transformers' modeling_glm4_moe.py): Q K V with their biases, O
  // without, the query and key norms of 128 each and the layer's two norms; a dense MLP of
  // 3·h·12288; 160 routed experts and one shared of 3·h·1536, and the router h x 160.
  const std::int64_t h = 5120, q = 96 * 128, kv = 8 * 128;
  const std::int64_t attention = h * (q + 2 * kv) + (q + 2 * kv) + q * h + 2 * 128 + 2 * h;
  const std::int64_t dense = attention + 3 * h * 12288;
  const std::int64_t expert = 3 * h * 1536;
  const std::int64_t sparse = attention + 161 * expert + h * 160;
  const std::int64_t outside = 2 * 151552 * h + h;  // embedding, head (untied), final norm
  CHECK(model_parameters(m) == 3 * dense + 89 * sparse + outside);
  CHECK(model_parameters(m) == 352'797'814'784);
  // Z.ai's model card: "355 billion total parameters" (with the MTP layer's 4B), "32 billion active".
  CHECK(double(model_parameters(m)) == doctest::Approx(355e9).epsilon(0.01));
  CHECK(active_parameters(m) == model_parameters(m) - 89 * (160 - 8) * expert);
  const ModelConfig back = model_config_from_json(model_config_to_json(m), "back.json");
  CHECK(back.family == "glm4_moe");
  CHECK(model_parameters(back) == model_parameters(m));
  CHECK(back.rotary_share == 0.5);
  CHECK(back.qk_norm);
  CHECK(back.first_dense_layers == 3);
  CHECK(back.mtp_layers == 1);
}

TEST_CASE("GLM-4.5-Air: no query-key norms, one dense layer, 128 experts of 1408, 106.9B as its card's 106B") {
  const ModelConfig m =
      read_model_config_file(std::string(PIPEPLAN_TEST_DATA "/../../profiles/models/glm-4.5-air.json"));
  CHECK_FALSE(m.qk_norm);
  CHECK(expert_layers(m) == 45);
  const std::int64_t h = 4096, q = 96 * 128, kv = 8 * 128;
  const std::int64_t attention = h * (q + 2 * kv) + (q + 2 * kv) + q * h + 2 * h;
  const std::int64_t expert = 3 * h * 1408;
  CHECK(model_parameters(m) ==
        (attention + 3 * h * 10944) + 45 * (attention + 129 * expert + h * 128) + 2 * 151552 * h + h);
  CHECK(model_parameters(m) == 106'852'245'504);  // "106 billion total parameters"
}

TEST_CASE("DeepSeek-V2-Lite (deepseek_v2): latent attention without a query latent, 64 experts and 2 shared, 15.7B") {
  const ModelConfig m =
      read_model_config_file(std::string(PIPEPLAN_TEST_DATA "/../../profiles/models/deepseek-v2-lite.json"));
  CHECK(m.family == "deepseek_v2");
  CHECK(m.latent.enabled());
  CHECK(m.latent.q_rank == 0);  // q_lora_rank null: W_Q projects the hidden state itself
  CHECK(m.mtp_layers == 0);
  CHECK(expert_layers(m) == 26);
  // By hand (DeepSeek-V2 report, section 2.1): W_Q h x 16(128 + 64), W_DKV+KR h x (512 + 64), the
  // latent's norm 512, W_UKV 512 x 16(128 + 128), W_O 16·128 x h, two norms; a dense MLP of
  // 3·h·10944; 64 routed and 2 shared experts of 3·h·1408 and the router h x 64.
  const std::int64_t h = 2048;
  const std::int64_t attention = h * 16 * 192 + h * 576 + 512 + 512 * 16 * 256 + 16 * 128 * h + 2 * h;
  const std::int64_t expert = 3 * h * 1408;
  CHECK(model_parameters(m) ==
        (attention + 3 * h * 10944) + 26 * (attention + 66 * expert + h * 64) + 2 * 102400 * h + h);
  CHECK(model_parameters(m) == 15'706'484'224);  // DeepSeek's "15.7B total parameters"
  CHECK(active_parameters(m) == model_parameters(m) - 26 * (64 - 6) * expert);
  const ModelConfig back = model_config_from_json(model_config_to_json(m), "back.json");
  CHECK(back.family == "deepseek_v2");
  CHECK(model_parameters(back) == model_parameters(m));
  const Json v2 = Json::parse(R"({"model_type": "deepseek_v2", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "kv_lora_rank": 16, "qk_nope_head_dim": 16,
      "qk_rope_head_dim": 8, "v_head_dim": 16})");
  CHECK(test::error_of([&] {
          (void)model_config_from_json(v2, "v2.json");
        }).starts_with("v2.json: missing 'n_routed_experts', the experts of model_type deepseek_v2"));
}

TEST_CASE("partial_rotary_factor is read where transformers 5 writes it, and a bad one is named there") {
  const std::string shape =
      R"("model_type": "glm4_moe", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
         "num_attention_heads": 4, "vocab_size": 100, "n_routed_experts": 4, "num_experts_per_tok": 2,
         "moe_intermediate_size": 32)";
  const auto read = [&](const std::string& extra) {
    return model_config_from_json(Json::parse("{" + shape + extra + "}"), "g.json");
  };
  CHECK(read("").rotary_share == 0.5);  // Glm4MoeConfig's default
  CHECK(read(R"(, "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.25})").rotary_share == 0.25);
  CHECK(read(R"(, "partial_rotary_factor": 1.0)").rotary_share == 1.0);
  CHECK(test::error_of([&] {
          (void)read(R"(, "rope_parameters": {"partial_rotary_factor": 0})");
        }).starts_with("g.json: rope_parameters.partial_rotary_factor: expected a share above 0, at most 1"));
  CHECK(test::error_of([&] {
          (void)read(R"(, "n_routed_experts": null)");
        }).starts_with("g.json: missing 'n_routed_experts', the experts of model_type glm4_moe"));
}

TEST_CASE("every family writes a config it reads back to the same shape and count") {
  for (const char* file : {"deepseek-v3.json", "qwen3-235b-a22b.json", "gpt-oss-120b.json", "mixtral-8x7b.json",
                           "tiny-qwen-moe.json", "tiny-llama.json", "gpt2.json"}) {
    CAPTURE(file);
    const ModelConfig m = model(file);
    const ModelConfig back = model_config_from_json(model_config_to_json(m), "back.json");
    CHECK(back.family == m.family);
    CHECK(model_parameters(back) == model_parameters(m));
    CHECK(active_parameters(back) == active_parameters(m));
    CHECK(back.local.layers == m.local.layers);
    CHECK(back.mtp_layers == m.mtp_layers);
    CHECK(back.first_dense_layers == m.first_dense_layers);
  }
}

TEST_CASE("Llama 4's text_config, Nemotron's squared ReLU and Qwen3's dense layers are read") {
  const Json llama4 = Json::parse(R"({"model_type": "llama4", "architectures": ["Llama4ForConditionalGeneration"],
      "text_config": {"model_type": "llama4_text", "hidden_size": 64, "intermediate_size": 32,
      "intermediate_size_mlp": 96, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
      "head_dim": 16, "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 1,
      "interleave_moe_layer_step": 2, "attention_chunk_size": 8192}})");
  const ModelConfig l4 = model_config_from_json(llama4, "l4.json");
  CHECK(l4.family == "llama4");
  CHECK(l4.ffn == 96);
  CHECK(l4.moe.ffn == 32);
  CHECK(l4.moe.shared_ffn == 32);
  CHECK_FALSE(layer_kind(l4, 0).experts);  // (i + 1) % 2 == 0: layers 1 and 3
  CHECK(layer_kind(l4, 1).experts);
  CHECK(layer_kind(l4, 0).local);  // every fourth layer attends globally (no_rope_layer_interval 4)
  CHECK_FALSE(layer_kind(l4, 3).local);
  // Chunks of 8192 at a sequence of 8192 are the whole causal sequence.
  TrainingSettings t;
  t.seq = 8192;
  CHECK(layer_work(l4, t, {false, true}).f_flops == layer_work(l4, t, {false, false}).f_flops);

  const Json nemotron = Json::parse(R"({"model_type": "nemotron", "hidden_size": 64, "intermediate_size": 256,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100,
      "hidden_act": "relu2", "partial_rotary_factor": 0.5})");
  const ModelConfig n = model_config_from_json(nemotron, "n.json");
  CHECK_FALSE(n.gated_mlp);
  CHECK(n.layer_norm);
  // Q K V 64 x (64 + 2·32), O 64 x 64, up and down 64 x 256 each, two LayerNorms with biases.
  CHECK(layer_work(n, TrainingSettings{}).params == 64 * (64 + 2 * 32) + 64 * 64 + 2 * 64 * 256 + 4 * 64);
  CHECK(test::error_of([] {
          (void)model_config_from_json(Json::parse(R"({"model_type": "nemotron", "hidden_size": 64,
              "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
              "hidden_act": "gelu"})"),
                                       "n.json");
        }) == "n.json: hidden_act: expected \"relu2\" (Nemotron's squared ReLU), got \"gelu\"");
}

TEST_CASE("BLOOM: GPT-2's layers with ALiBi, 176,247,271,424 parameters") {
  const ModelConfig m = read_model_config_file(PIPEPLAN_TEST_DATA "/../../profiles/models/bloom-176b.json");
  CHECK(m.family == "bloom");
  const std::int64_t h = 14336;
  // Per layer: Q K V 3h^2 with biases 3h, the output h^2 + h, the MLP 2 x 4h^2 with biases 4h + h,
  // two LayerNorms 4h; the tied embedding V x h with its LayerNorm 2h; the final LayerNorm 2h.
  CHECK(model_parameters(m) == 70 * (12 * h * h + 13 * h) + 250880 * h + 4 * h);
  CHECK(model_parameters(m) == 176'247'271'424);  // Hugging Face's count for bigscience/bloom
}

TEST_CASE("the piece totals a layout balances price each layer by its own kind") {
  const ModelConfig m = model("deepseek-v3.json");
  TrainingSettings t;
  t.seq = 4096;
  t.tp = 8;
  t.ep = 8;
  const PieceTotals totals = piece_totals(m, t, gpu_named("h100"), {});
  REQUIRE(totals.layers.size() == 61);
  CHECK(totals.layers[0] == totals.layers[2]);
  CHECK(totals.layers[3] != totals.layers[0]);  // the first expert layer differs from the dense ones
  CHECK(totals.layers[60] == totals.layers[3]);
  // first_k_dense_replace 3: three dense layers, then 58 of experts.
  CHECK(totals.all() == doctest::Approx(totals.embedding + totals.head + 3 * totals.layers[0] + 58 * totals.layers[3]));
}

TEST_CASE("DeepSeek's node-limited routing: across 8 domains a token goes once to each of at most 4") {
  const ModelConfig m = model("deepseek-v3.json");
  CHECK(m.moe.groups == 8);
  CHECK(m.moe.groups_per_token == 4);
  TrainingSettings t;
  t.seq = 4096;
  t.ep = 64;
  t.etp = 1;
  const PieceWork w = layer_work(m, t, {true, false});
  const GpuSpec& h800 = gpu_named("h800");
  // ep 64 of tp 1 over 8-GPU domains: 8 domains.
  const GroupLinks links = group_links(h800, {1, 1, 64, 64, 8, RankOrder::TpDpPp, 1, 1});
  CHECK(links.expert_domains == 8);
  // Without the limit each rank sends k (ep - 1)/ep = 8·63/64 of its 4096 tokens' h·e bytes; with
  // it, one copy to each remote domain of the 4 chosen, 4·7/8 (DeepSeek-V3 report, 3.2.2).
  const double token = 4096.0 * 7168 * 2;
  CHECK(w.all_to_all_bytes == doctest::Approx(token * 8 * 63 / 64));
  const LinkSpec& ib = h800.inter_node;
  const double limited = ib.latency_ms + token * 4 * 7 / 8 / (ib.bandwidth_gb_per_s * ib.send_efficiency * 1e9) * 1e3;
  CHECK(all_to_all_ms(w, ib, nullptr, 8).f_ms == doctest::Approx(2 * limited));
  // Within one domain the limit changes nothing.
  const double whole = ib.latency_ms + token * 8 * 63 / 64 / (ib.bandwidth_gb_per_s * ib.send_efficiency * 1e9) * 1e3;
  CHECK(all_to_all_ms(w, ib, nullptr, 1).f_ms == doctest::Approx(2 * whole));
}

TEST_CASE("a mixture of experts without its experts' width is refused, naming the keys") {
  const Json oss = Json::parse(R"({"model_type": "gpt_oss", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 1})");
  CHECK(test::error_of([&] { (void)model_config_from_json(oss, "o.json"); }) ==
        "o.json: missing the experts' width ('intermediate_size' or 'moe_intermediate_size')");
}

TEST_CASE("the Hub configs in profiles/models count what their model cards publish") {
  // Rounded figures from the model cards: Qwen3-30B-A3B "30.5B in total and 3.3B activated",
  // Mixtral 8x22B "141B parameters, 39B active", Kimi K2 "1 trillion total, 32 billion activated".
  const auto shipped = [](const char* file) {
    return read_model_config_file(std::string(PIPEPLAN_TEST_DATA "/../../profiles/models/") + file);
  };
  const ModelConfig qwen = shipped("qwen3-30b-a3b.json"), mixtral = shipped("mixtral-8x22b.json"),
                    kimi = shipped("kimi-k2.json");
  CHECK(double(model_parameters(qwen)) == doctest::Approx(30.5e9).epsilon(0.005));
  CHECK(double(active_parameters(qwen)) == doctest::Approx(3.3e9).epsilon(0.02));
  CHECK(double(model_parameters(mixtral)) == doctest::Approx(141e9).epsilon(0.005));
  CHECK(double(active_parameters(mixtral)) == doctest::Approx(39e9).epsilon(0.01));
  CHECK(double(model_parameters(kimi)) == doctest::Approx(1.0e12).epsilon(0.03));
  CHECK(double(active_parameters(kimi)) == doctest::Approx(32e9).epsilon(0.03));
  CHECK(kimi.family == "kimi_k2");
}

TEST_CASE("a mixture of experts' family without its expert count is refused, not planned as dense") {
  // Mixtral without num_local_experts planned 7.24e9 dense parameters (Hugging Face's default
  // would be 8 experts): the count is required, 1 for a dense model.
  const std::string shape =
      R"("hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100)";
  const auto error = [&](const std::string& type) {
    return test::error_of([&] {
      (void)model_config_from_json(Json::parse("{" + shape + R"(, "model_type": ")" + type + "\"}"), "c.json");
    });
  };
  CHECK(error("mixtral") ==
        "c.json: missing 'num_local_experts', the experts of model_type mixtral (1 for a dense model)");
  CHECK(error("qwen2_moe").starts_with("c.json: missing 'num_experts'"));
  CHECK(error("qwen3_moe").starts_with("c.json: missing 'num_experts'"));
  CHECK(error("gpt_oss").starts_with("c.json: missing 'num_local_experts'"));
}

TEST_CASE("MiniMax-M2.7 (minimax_m2): norms across heads, rotary_dim 64 of 128, 256 experts of 1536, 228.7B") {
  const ModelConfig m =
      read_model_config_file(std::string(PIPEPLAN_TEST_DATA "/../../profiles/models/minimax-m2.7.json"));
  CHECK(m.family == "minimax_m2");
  CHECK(m.q_hidden() == 48 * 128);  // wider than hidden_size 3072
  CHECK(m.rotary_share == 0.5);     // rotary_dim 64 of head_dim 128
  CHECK(m.qk_norm);
  CHECK(m.qk_norm_across_heads);
  CHECK(m.mtp_layers == 3);  // use_mtp, num_mtp_modules 3 of one layer each
  CHECK(expert_layers(m) == 62);
  // By hand from the config (transformers' modeling_minimax_m2.py): Q K V and O without biases,
  // q_norm over 48·128 and k_norm over 8·128 (one weight per query and key channel, not per head
  // dimension), the layer's two norms; 256 experts of 3·h·1536 and the router h x 256.
  const std::int64_t h = 3072, q = 48 * 128, kv = 8 * 128;
  const std::int64_t attention = h * (q + 2 * kv) + q * h + (q + kv) + 2 * h;
  const std::int64_t expert = 3 * h * 1536;
  const std::int64_t outside = 2 * 200064 * h + h;  // embedding, head (untied), final norm
  CHECK(model_parameters(m) == 62 * (attention + 256 * expert + h * 256) + outside);
  CHECK(model_parameters(m) == 228'689'748'992);  // MiniMax's "230B total parameters", without MTP
  CHECK(active_parameters(m) == 62 * (attention + 8 * expert + h * 256) + outside);
  CHECK(active_parameters(m) == 11'030'537'216);  // "10B active": 9.8B in the layers
  // The norms' weights are the only difference from per-head norms (2·128): q + kv - 256 a layer.
  ModelConfig per_head = m;
  per_head.qk_norm_across_heads = false;
  CHECK(model_parameters(m) - model_parameters(per_head) == 62 * (q + kv - 2 * 128));
  const ModelConfig back = model_config_from_json(model_config_to_json(m), "back.json");
  CHECK(back.family == "minimax_m2");
  CHECK(model_parameters(back) == model_parameters(m));
  CHECK(back.qk_norm_across_heads);
  CHECK(back.rotary_share == 0.5);
  CHECK(back.mtp_layers == 3);
}

TEST_CASE("MiniMax-M2: what it does not model is refused, naming the key, and tensor parallelism stays at 1") {
  const std::string shape =
      R"("model_type": "minimax_m2", "hidden_size": 64, "intermediate_size": 32, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32, "vocab_size": 100,
         "num_local_experts": 4, "num_experts_per_tok": 2)";
  const auto read = [&](const std::string& extra) {
    return model_config_from_json(Json::parse("{" + shape + extra + "}"), "mm.json");
  };
  const auto error = [&](const std::string& extra) { return test::error_of([&] { (void)read(extra); }); };
  // transformers 5 writes partial_rotary_factor, MiniMax's own code rotary_dim: either, or both agreeing.
  CHECK(read(R"(, "rotary_dim": 16)").rotary_share == 0.5);
  CHECK(read(R"(, "rope_parameters": {"partial_rotary_factor": 0.25})").rotary_share == 0.25);
  CHECK(read(R"(, "rotary_dim": 16, "partial_rotary_factor": 0.5)").rotary_share == 0.5);
  // A factor written to a few digits (a third of a head, say) agrees with its rotary_dim.
  CHECK(read(R"(, "rotary_dim": 16, "partial_rotary_factor": 0.5000001)").rotary_share == doctest::Approx(0.5));
  CHECK(error(R"(, "rotary_dim": 16, "partial_rotary_factor": 0.25)") ==
        "mm.json: rotary_dim: 16 of head_dim 32 turns 0.5 of each head, where partial_rotary_factor says 0.25");
  CHECK(read("").mtp_layers == 0);  // use_mtp absent: none
  CHECK(read(R"(, "use_mtp": false, "num_mtp_modules": 3)").mtp_layers == 0);
  CHECK(error(R"(, "use_mtp": true, "num_mtp_modules": 1, "mtp_transformer_layers": 2)")
            .starts_with("mm.json: mtp_transformer_layers: 2: multi-token prediction modules of more than one layer"));
  CHECK(error(R"(, "attn_type_list": [1, 0])")
            .starts_with("mm.json: attn_type_list[1]: 0: MiniMax's linear (lightning) attention is not modelled"));
  CHECK(error(R"(, "attn_type_list": [1])")
            .starts_with("mm.json: attn_type_list: expected a list of one entry a layer (2)"));
  CHECK(error(R"(, "qk_norm_type": "per_head")").starts_with("mm.json: qk_norm_type: expected \"per_layer\""));
  CHECK(error(R"(, "sliding_window": 4096)").starts_with("mm.json: sliding_window: expected null"));
  CHECK(error(R"(, "shared_intermediate_size": 64)")
            .starts_with("mm.json: shared_intermediate_size: 64: a shared expert"));
  CHECK(error(R"(, "num_local_experts": null)")
            .starts_with("mm.json: missing 'num_local_experts', the experts of model_type minimax_m2"));
  // Each norm over every head needs a sum of squares all-reduced across tensor-parallel ranks,
  // which is not timed: tp 2 is refused with the reason, tp 1 planned; without the norms, tp 2 is fine.
  const ModelConfig m = read("");
  TrainingSettings t;
  t.tp = 2;
  CHECK(test::error_of([&] {
          (void)layer_work(m, t);
        }).starts_with("--tp 2: the query and key norms run over every head"));
  ModelConfig no_norms = read(R"(, "use_qk_norm": false)");
  CHECK_FALSE(no_norms.qk_norm);
  CHECK(layer_work(no_norms, t).params > 0);
  t.tp = 1;
  CHECK(layer_work(m, t).params > 0);
}
