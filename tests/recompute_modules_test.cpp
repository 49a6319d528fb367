// Megatron-Core's selective recompute by module (docs/costs.md, "Recompute by module"): what each
// module stops keeping and what the backward does again, derived by hand from the layer's shapes.
#include <doctest/doctest.h>

#include <string>

#include "estimate/layer_kinds.hpp"
#include "estimate/moe_work.hpp"
#include "estimate/piece_gemms.hpp"
#include "estimate/piece_work.hpp"
#include "estimate/recompute_modules.hpp"
#include "io/model_config_json.hpp"
#include "io/model_flags.hpp"
#include "model/error.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

ModelConfig hub(const char* file) {
  return read_model_config_file(std::string(PIPEPLAN_TEST_DATA "/../../profiles/models/") + file);
}

// One sequence of 4096 tokens, bf16 (e = 2), tp 1, flash attention: T = 4096.
TrainingSettings with_modules(RecomputeModules modules) {
  TrainingSettings t;
  t.seq = 4096;
  t.micro_batch = 1;
  t.recompute = Recompute::Selective;
  t.recompute_modules = modules;
  return t;
}

TrainingSettings keep_all() {
  TrainingSettings t = with_modules(0);
  t.recompute = Recompute::None;
  return t;
}

constexpr RecomputeModules bit(RecomputeModule m) {
  return unsigned(m);
}

double kept_less(const ModelConfig& m, const LayerKind& kind, RecomputeModules modules) {
  return double(layer_work(m, keep_all(), kind).activation_bytes) -
         double(layer_work(m, with_modules(modules), kind).activation_bytes);
}

}  // namespace

TEST_CASE("--recompute-modules names: Megatron's spelling, any case, each once") {
  std::string bad;
  CHECK(recompute_modules_named("layernorm,moe_act", bad) ==
        (bit(RecomputeModule::Layernorm) | bit(RecomputeModule::MoeAct)));
  CHECK(recompute_modules_named("MLA_UP_PROJ", bad) == bit(RecomputeModule::MlaUpProj));
  CHECK_FALSE(recompute_modules_named("layernorm,attention", bad).has_value());
  CHECK(bad == "attention");
  CHECK_FALSE(recompute_modules_named("mlp,mlp", bad).has_value());
  CHECK(bad == "mlp");
  CHECK_FALSE(recompute_modules_named("mlp,", bad).has_value());
  CHECK(bad.empty());
  // The order of kRecomputeModules, whatever the order given.
  const RecomputeModules set = *recompute_modules_named("moe_act,core_attn,layernorm", bad);
  CHECK(recompute_modules_names(set) == "core_attn,layernorm,moe_act");
  CHECK(recompute_modules_names(set, " ") == "core_attn layernorm moe_act");
}

TEST_CASE("core_attn under flash attention: the core's forward again in B, its log-sum-exp not kept") {
  const ModelConfig m = hub("llama-3-8b.json");  // 32 heads of 128, hidden 4096
  const LayerKind dense = layer_kind(m, 0);
  const PieceWork none = layer_work(m, keep_all(), dense);
  const PieceWork core = layer_work(m, with_modules(kDefaultRecomputeModules), dense);
  CHECK(core.b_flops - none.b_flops == doctest::Approx(none.f_core_flops));
  CHECK(core.recompute_flops == doctest::Approx(none.f_core_flops));
  // 32 heads x 4096 tokens x 4 bytes of fp32 log-sum-exp.
  CHECK(double(none.activation_bytes - core.activation_bytes) == 32.0 * 4096 * 4);
}

TEST_CASE("layernorm: only the norms Transformer Engine does not fuse into a linear drop their outputs") {
  // Llama's two norms run inside the QKV and first MLP linears: nothing to drop.
  const ModelConfig llama = hub("llama-3-8b.json");
  CHECK(kept_less(llama, layer_kind(llama, 0), bit(RecomputeModule::Layernorm)) == 0);
  // Qwen3-30B-A3B's pre-MLP norm feeds the router: its T x h output, 4096 x 2048 x 2 bytes.
  const ModelConfig qwen = hub("qwen3-30b-a3b.json");
  const LayerKind moe = layer_kind(qwen, 0);
  REQUIRE(moe.experts);
  CHECK(kept_less(qwen, moe, bit(RecomputeModule::Layernorm)) == 4096.0 * 2048 * 2);
  // B runs the norm again: reads x and writes y, 2e bytes an element (elementwise_kernels.hpp).
  const double again = layer_work(qwen, with_modules(bit(RecomputeModule::Layernorm)), moe).b_bytes -
                       layer_work(qwen, keep_all(), moe).b_bytes;
  CHECK(again == doctest::Approx(4096.0 * 2048 * 4));
}

TEST_CASE("moe_act: the experts' activation output dropped, and the fused SwiGLU run again") {
  const ModelConfig qwen = hub("qwen3-30b-a3b.json");  // 8 of 128 experts a token, each 768 wide
  const LayerKind moe = layer_kind(qwen, 0);
  // 4096 tokens x 8 copies x 768 x 2 bytes.
  CHECK(kept_less(qwen, moe, bit(RecomputeModule::MoeAct)) == 4096.0 * 8 * 768 * 2);
  // Again in B: the fused SwiGLU reads gate and up and writes the product, 3e bytes an output.
  const double again = layer_work(qwen, with_modules(bit(RecomputeModule::MoeAct)), moe).b_bytes -
                       layer_work(qwen, keep_all(), moe).b_bytes;
  CHECK(again == doctest::Approx(4096.0 * 8 * 768 * 6));
}

TEST_CASE("mla_up_proj: DeepSeek-V3's Q, K and V dropped, its two up projections run again") {
  const ModelConfig ds = hub("deepseek-v3.json");
  const LayerKind dense = layer_kind(ds, 0);
  // 128 heads: Q and K each 128 x (128 + 64) wide, V 128 x 128: 65536 elements a token, 2 bytes.
  CHECK(kept_less(ds, dense, bit(RecomputeModule::MlaUpProj)) == 4096.0 * 65536 * 2);
  // The query latent 1536 -> 128 x 192 and the key-value latent 512 -> 128 x (128 + 128), 2 FLOPs
  // a multiply-add over 4096 tokens.
  const PieceWork w = layer_work(ds, with_modules(bit(RecomputeModule::MlaUpProj)), dense);
  CHECK(w.recompute_flops == doctest::Approx(2.0 * 4096 * (1536.0 * 24576 + 512.0 * 32768)));
}

TEST_CASE("mlp: a dense layer's MLP keeps its input alone, a mixture of experts' layer is untouched") {
  const ModelConfig llama = hub("llama-3-8b.json");  // SwiGLU 14336 wide
  const LayerKind dense = layer_kind(llama, 0);
  // Dropped: the fused norm's input (e) and SwiGLU's gate and up (2e) and product (e), 14336 wide,
  // the norm's output swapped for the checkpoint's input, both h wide.
  CHECK(kept_less(llama, dense, bit(RecomputeModule::Mlp)) == 4096.0 * (4096 * 2 + 14336 * 6));
  const PieceWork w = layer_work(llama, with_modules(bit(RecomputeModule::Mlp)), dense);
  CHECK(w.recompute_flops == doctest::Approx(2.0 * 4096 * (4096.0 * 2 * 14336 + 14336.0 * 4096)));
  const ModelConfig qwen = hub("qwen3-30b-a3b.json");
  CHECK(kept_less(qwen, layer_kind(qwen, 0), bit(RecomputeModule::Mlp)) == 0);
}

TEST_CASE("moe: the whole block runs again in B, its two all-to-alls with it, W stays apart") {
  const ModelConfig qwen = hub("qwen3-30b-a3b.json");
  const LayerKind moe = layer_kind(qwen, 0);
  TrainingSettings none = keep_all(), block = with_modules(bit(RecomputeModule::Moe));
  none.ep = block.ep = 8;
  const PieceWork kept = moe_mlp_work(qwen, none), again = moe_mlp_work(qwen, block);
  CHECK(again.activation_bytes == 0);
  CHECK(again.b_flops - kept.b_flops == doctest::Approx(kept.f_flops));
  CHECK(again.w_flops == kept.w_flops);
  CHECK(again.b_all_to_alls == kept.b_all_to_alls + 2);
  CHECK(layer_work(qwen, block, moe).activation_bytes < layer_work(qwen, none, moe).activation_bytes);
}

TEST_CASE("--recompute-modules: implies selective, and is refused where it has nothing to act on") {
  ModelFlags f;
  f.model = PIPEPLAN_TEST_DATA "/../../profiles/models/llama-3-8b.json";
  f.gpu = "h100";
  f.training.seq = 4096;
  f.recompute_modules = "mlp";
  const ModelInput in = read_model_input(f);
  CHECK(in.training.recompute == Recompute::Selective);
  CHECK(in.training.recompute_modules == bit(RecomputeModule::Mlp));
  CHECK_FALSE(searched_settings(f).recompute);
  f.recompute = "full";
  f.given.recompute = true;
  CHECK_THROWS_AS((void)read_model_input(f), FlagError);
  f.recompute = "selective";
  f.recompute_modules = "mla_up_proj";
  CHECK_THROWS_WITH_AS((void)read_model_input(f), doctest::Contains("no latent attention"), Error);
  f.recompute_modules = "moe_act";
  CHECK_THROWS_WITH_AS((void)read_model_input(f), doctest::Contains("has no experts"), Error);
  f.recompute_modules = "layernorm,nothing";
  CHECK_THROWS_WITH_AS((void)read_model_input(f), doctest::Contains("'nothing'"), FlagError);
}

TEST_CASE("the recomputed products are priced as products: B lists them again, at their shapes") {
  const auto added_flops = [](const ModelConfig& m, RecomputeModules modules) {
    const LayerKind kind = layer_kind(m, 0);
    const PhaseGemms none = layer_linear_gemms(m, keep_all(), kind);
    const PhaseGemms again = layer_linear_gemms(m, with_modules(modules), kind);
    double flops = 0;
    for (std::size_t i = none.b.size(); i < again.b.size(); ++i) flops += again.b[i].flops();
    CHECK(again.w.size() == none.w.size());  // W stays apart
    return flops;
  };
  // Each module's products, as its recompute FLOPs count them (the cases above).
  const ModelConfig llama = hub("llama-3-8b.json"), ds = hub("deepseek-v3.json"), qwen = hub("qwen3-30b-a3b.json");
  CHECK(added_flops(llama, bit(RecomputeModule::Mlp)) ==
        doctest::Approx(layer_work(llama, with_modules(bit(RecomputeModule::Mlp))).recompute_flops));
  CHECK(added_flops(ds, bit(RecomputeModule::MlaUpProj)) ==
        doctest::Approx(2.0 * 4096 * (1536.0 * 24576 + 512.0 * 32768)));
  // The whole block: the experts' products (the router's logits stay a large product's FLOPs).
  const double router = 2.0 * 4096 * 2048 * 128;
  CHECK(added_flops(qwen, bit(RecomputeModule::Moe)) + router ==
        doctest::Approx(moe_mlp_work(qwen, with_modules(bit(RecomputeModule::Moe))).recompute_flops));
  CHECK(added_flops(llama, kDefaultRecomputeModules) == 0);
}

TEST_CASE("plan's light set between none and full: the output-discarding modules the model has") {
  CHECK(light_recompute_modules(hub("llama-3-8b.json")) == 0);  // grouped-query and dense: none apart
  CHECK(light_recompute_modules(hub("qwen3-30b-a3b.json")) ==
        (bit(RecomputeModule::Layernorm) | bit(RecomputeModule::MoeAct)));
  CHECK(light_recompute_modules(hub("deepseek-v3.json")) ==
        (bit(RecomputeModule::Layernorm) | bit(RecomputeModule::MlaUpProj) | bit(RecomputeModule::MoeAct)));
}
