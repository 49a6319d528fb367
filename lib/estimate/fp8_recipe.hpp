#pragma once
// FP8 training's rules (docs/costs.md, "FP8"): the linear layers' GEMMs run in FP8 while the
// weights and the activations between kernels stay BF16, as Transformer Engine and torchao's
// float8 train. A recipe decides how each GEMM input is quantised (the bytes its casts move and
// in which phase), which FP8 copies of the weights live beside the BF16 weights and FP32
// masters, and in what the saved linear inputs are kept. The attention core, the element-wise
// kernels, the head, the embedding and the collectives stay BF16.
#include <optional>
#include <string>

#include "estimate/gpu_catalog.hpp"
#include "estimate/piece_gemms.hpp"
#include "estimate/piece_work.hpp"
#include "estimate/training.hpp"

namespace pipeplan {

/// The recipe a card runs unless told otherwise: mxfp8 on Blackwell, tensorwise on Hopper and
/// Ada (Megatron-LM's and Transformer Engine's defaults there); nullopt for a card without FP8.
[[nodiscard]] std::optional<Fp8Recipe> default_fp8_recipe(const GpuSpec& gpu);

/// Why `recipe` cannot run on `gpu`, naming both; nullopt when it can. A card without FP8 runs
/// none; mxfp8 needs Blackwell's block-scaled tensor cores; blockwise needs Hopper or later
/// (Transformer Engine's supported devices).
[[nodiscard]] std::optional<std::string> fp8_refusal(Fp8Recipe recipe, const GpuSpec& gpu);

/// The role of a tensor a linear layer's GEMMs read.
enum class Fp8Operand : unsigned char {
  Input,     ///< X, quantised in F (again in B under full recompute)
  Gradient,  ///< dY, quantised in B
  Weight,    ///< W, quantised once a step (its copies are kept across micro-batches)
};

/// Bytes one element of `operand` takes in one FP8 copy, its scales included: 1 for one scale
/// per tensor; 1 + 4/128 for 1x128 blocks with fp32 scales, 1 + 4/128² for 128x128 weight
/// blocks; 1 + 1/32 for MXFP8's 32-element blocks with one-byte E8M0 scales.
[[nodiscard]] double fp8_element_bytes(Fp8Recipe recipe, Fp8Operand operand);

/// Throws Error naming --fp8-params where the FP8 weights cannot stand alone: Megatron-LM keeps
/// them so only with its distributed optimizer or FSDP (arguments.py), and Megatron-FSDP's FP8
/// units are not modelled (pipeplan's FSDP is torchtitan's). `sharding` is what the replicas
/// shard (none without replicas, where nothing is refused).
void check_fp8_params(const TrainingSettings& training, Sharding sharding, int replicas);

/// An FP8 product's kernel rate under `recipe` against a per-tensor-scaled one's at the same
/// shape: MXFP8's block-scaled GEMMs on Blackwell at 0.951 (Transformer Engine's GEMM benchmark
/// with pre-quantized inputs, docs/costs.md, "FP8"); 1 for the others, none measured apart.
[[nodiscard]] double fp8_gemm_rate(Fp8Recipe recipe, Architecture architecture);

/// FP8 copies of one tensor the GEMMs need: 2 (row-wise and column-wise) where the two are
/// different data, 1 where one serves both (tensorwise and delayed scaling on Blackwell, whose
/// FP8 GEMMs take every layout; on Hopper and Ada only TN, so the column-wise copy is a transpose).
[[nodiscard]] int fp8_copies(Fp8Recipe recipe, Architecture architecture);

/// Memory traffic to quantise one element of a BF16 tensor: read it (twice under tensorwise
/// scaling, whose amax pass runs first; delayed scaling takes the amax from its history) and
/// write each copy.
[[nodiscard]] double fp8_cast_bytes(Fp8Recipe recipe, Architecture architecture, Fp8Operand operand);

/// Bytes per linear weight element of the FP8 copies kept beside the BF16 weight.
[[nodiscard]] double fp8_weight_copy_bytes(Fp8Recipe recipe, Architecture architecture);

/// The linear weight elements of `gemms.linears`: what the FP8 weight copies are kept for.
[[nodiscard]] double fp8_weight_elements(const PhaseGemms& gemms);

/// What the recipe changes in a piece's activations: each linear input W's product needs is
/// kept in FP8 instead of 16 bits (beside it when `input_kept`), and so is each output gradient
/// W needs. Nothing under full recompute (only the layer's input is kept). No-op without FP8.
void apply_fp8_memory(PieceWork& work, const PhaseGemms& gemms, const TrainingSettings& training);

/// FP8 training of one piece on `gpu`: its listed products run in FP8 (`gemms` marked fp8), the
/// casts of their inputs and output gradients are element-wise bytes in the phase that runs them
/// (F, B), and apply_fp8_memory. No-op without FP8 (training.fp8 empty). Throws Error when the
/// recipe cannot run on the card (fp8_refusal).
void apply_fp8(PieceWork& work, PhaseGemms& gemms, const TrainingSettings& training, const GpuSpec& gpu);

}  // namespace pipeplan
