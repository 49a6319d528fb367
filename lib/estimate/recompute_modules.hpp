#pragma once
// Megatron-Core's selective recompute by module (--recompute-granularity selective
// --recompute-modules, transformer_config.py at d98e8a64): which parts of a layer drop what they
// made in the forward and make it again in the backward (docs/costs.md, "Recompute by module").
// Selective recompute without a list recomputes the attention core, Megatron-Core's default.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "estimate/model_config.hpp"
#include "model/enum_table.hpp"

namespace pipeplan {

/// One module, as a bit of RecomputeModules.
enum class RecomputeModule : unsigned char {
  CoreAttn = 1,       ///< the attention core (checkpointed: it runs again before its backward)
  Layernorm = 2,      ///< the norms that run apart from a linear: its output dropped, remade
  MlaUpProj = 4,      ///< latent attention's up projections and RoPE: Q, K and V dropped, remade
  Mlp = 8,            ///< a dense layer's MLP (checkpointed; MoE layers' are not touched)
  MoeAct = 16,        ///< the experts' activation: its output, the second products' input, remade
  Moe = 32,           ///< a mixture of experts' whole block (checkpointed: dispatch and combine again)
  SharedExperts = 64  ///< the shared expert (checkpointed)
};

/// A set of modules, one bit each.
using RecomputeModules = unsigned;

inline constexpr RecomputeModules kDefaultRecomputeModules = unsigned(RecomputeModule::CoreAttn);

inline constexpr EnumTable<RecomputeModule, 7> kRecomputeModules = {{
    {"core_attn", RecomputeModule::CoreAttn, "the attention core runs again before its backward"},
    {"layernorm", RecomputeModule::Layernorm,
     "the norms not fused into a linear (latent attention's input norm, a mixture of experts' pre-MLP norm) drop "
     "their outputs"},
    {"mla_up_proj", RecomputeModule::MlaUpProj, "latent attention's up projections and RoPE drop Q, K and V"},
    {"mlp", RecomputeModule::Mlp, "a dense layer's MLP keeps its input only"},
    {"moe_act", RecomputeModule::MoeAct, "the experts' activation drops its output"},
    {"moe", RecomputeModule::Moe, "a mixture of experts' block keeps its input only"},
    {"shared_experts", RecomputeModule::SharedExperts, "the shared expert keeps its input only"},
}};

[[nodiscard]] constexpr bool has_module(RecomputeModules set, RecomputeModule m) {
  return (set & unsigned(m)) != 0;
}

/// "layernorm,moe_act" (Megatron's spelling, comma-separated, any case and order, each once)
/// to a set; nullopt names the first word that is none of kRecomputeModules in `bad`.
[[nodiscard]] std::optional<RecomputeModules> recompute_modules_named(std::string_view list, std::string& bad);

/// The modules whose recompute costs the least and that `model` has: those Megatron-Core
/// checkpoints by dropping their output alone (transformer_config.py: "moe_act", "layernorm" and
/// "mla_up_proj" use output-discarding checkpointing): the experts' activation and the norms
/// that run apart from a linear in a mixture of experts, latent attention's up projections and
/// its input norm. 0 for a dense model of grouped-query attention, which has none of them. What
/// `plan` tries between no recompute and full.
[[nodiscard]] RecomputeModules light_recompute_modules(const ModelConfig& model);

/// The set's names in kRecomputeModules' order; joined by `separator`.
[[nodiscard]] std::vector<std::string_view> recompute_modules_list(RecomputeModules set);
[[nodiscard]] std::string recompute_modules_names(RecomputeModules set, std::string_view separator = ",");

}  // namespace pipeplan
