#include "estimate/fp8_recipe.hpp"

#include "model/error.hpp"

namespace pipeplan {

namespace {

constexpr double kBf16 = 2.0;  // what the weights and activations are kept in under FP8

}  // namespace

std::optional<Fp8Recipe> default_fp8_recipe(const GpuSpec& gpu) {
  if (gpu.tflops_fp8 <= 0) return std::nullopt;
  return gpu.architecture == Architecture::Blackwell ? Fp8Recipe::Mxfp8 : Fp8Recipe::Tensorwise;
}

std::optional<std::string> fp8_refusal(Fp8Recipe recipe, const GpuSpec& gpu) {
  const std::string card = std::string(gpu.name) + " (" + std::string(architecture_name(gpu.architecture)) + ")";
  if (gpu.tflops_fp8 <= 0) return card + " has no FP8 tensor cores; FP8 training needs Ada, Hopper or Blackwell";
  if (recipe == Fp8Recipe::Mxfp8 && gpu.architecture != Architecture::Blackwell) {
    return "mxfp8 needs Blackwell's block-scaled tensor cores, which " + card +
           " lacks; use tensorwise, delayed or blockwise";
  }
  if (recipe == Fp8Recipe::Blockwise && gpu.architecture == Architecture::Ada) {
    return "blockwise runs on Hopper and Blackwell (Transformer Engine's Float8BlockScaling), not on " + card +
           "; use tensorwise or delayed";
  }
  return std::nullopt;
}

double fp8_element_bytes(Fp8Recipe recipe, Fp8Operand operand) {
  switch (recipe) {
    case Fp8Recipe::Tensorwise:
    case Fp8Recipe::Delayed:
      return 1.0;
    case Fp8Recipe::Blockwise:
      return operand == Fp8Operand::Weight ? 1.0 + 4.0 / (128.0 * 128.0) : 1.0 + 4.0 / 128.0;
    case Fp8Recipe::Mxfp8:
      return 1.0 + 1.0 / 32.0;
  }
  return 1.0;
}

void check_fp8_params(const TrainingSettings& tr, Sharding sharding, int replicas) {
  if (!tr.fp8_params || !tr.fp8) return;
  if (sharding == Sharding::Params) {
    throw Error(
        "--fp8-params with --sharding params: Megatron-FSDP's FP8 weight units are not modelled (pipeplan's "
        "FSDP is torchtitan's FSDP2); plan without --fp8-params or with --sharding optimizer");
  }
  if (sharding == Sharding::None && replicas > 1) {
    throw Error(
        "--fp8-params: Megatron-LM keeps the weights in FP8 alone only with its distributed optimizer or FSDP "
        "(arguments.py): use --sharding optimizer");
  }
}

double fp8_gemm_rate(Fp8Recipe recipe, Architecture architecture) {
  // Transformer Engine's GEMM benchmark (docs/examples/gemm_profiling at d0067d0), a B300 with
  // its inputs quantized beforehand, the 12 products of a 4096-wide layer at 15,872 tokens:
  // 6.812 ms per-tensor (current scaling), 7.161 ms MXFP8.
  if (recipe == Fp8Recipe::Mxfp8 && architecture == Architecture::Blackwell) return 6.812 / 7.161;
  return 1.0;
}

int fp8_copies(Fp8Recipe recipe, Architecture architecture) {
  const bool one_scale = recipe == Fp8Recipe::Tensorwise || recipe == Fp8Recipe::Delayed;
  return one_scale && architecture == Architecture::Blackwell ? 1 : 2;
}

double fp8_cast_bytes(Fp8Recipe recipe, Architecture architecture, Fp8Operand operand) {
  const double reads = recipe == Fp8Recipe::Tensorwise ? 2.0 : 1.0;
  return reads * kBf16 + fp8_copies(recipe, architecture) * fp8_element_bytes(recipe, operand);
}

double fp8_weight_copy_bytes(Fp8Recipe recipe, Architecture architecture) {
  return fp8_copies(recipe, architecture) * fp8_element_bytes(recipe, Fp8Operand::Weight);
}

double fp8_weight_elements(const PhaseGemms& gemms) {
  double elements = 0;
  for (const LinearTensors& l : gemms.linears) elements += l.weight;
  return elements;
}

void apply_fp8_memory(PieceWork& w, const PhaseGemms& gemms, const TrainingSettings& tr) {
  // Full recompute keeps no linear's input; torchtitan's by-op one keeps 16-bit outputs only
  // (op_checkpoint.hpp).
  if (!tr.fp8 || tr.recompute == Recompute::Full || tr.recompute == Recompute::Ops) return;
  const double input = fp8_element_bytes(*tr.fp8, Fp8Operand::Input);
  const double gradient = fp8_element_bytes(*tr.fp8, Fp8Operand::Gradient);
  double kept = double(w.activation_bytes), for_w = double(w.w_activation_bytes);
  for (const LinearTensors& l : gemms.linears) {
    // F keeps X for W's product: its column-wise FP8 copy in place of the 16-bit X, or beside it.
    kept += l.input_kept ? input * l.input : (input - kBf16) * l.input;
    // W reads the FP8 copies of X and dY, not their 16-bit tensors.
    for_w += (input - kBf16) * l.input + (gradient - kBf16) * l.gradient;
  }
  w.activation_bytes = static_cast<Bytes>(kept > 0 ? kept + 0.5 : 0.0);
  w.w_activation_bytes = static_cast<Bytes>(for_w > 0 ? for_w + 0.5 : 0.0);
}

void apply_fp8(PieceWork& w, PhaseGemms& gemms, const TrainingSettings& tr, const GpuSpec& gpu) {
  if (!tr.fp8) return;
  if (std::optional<std::string> refusal = fp8_refusal(*tr.fp8, gpu)) throw Error("--fp8-recipe: " + *refusal);
  for (std::vector<GemmShape>* phase : {&gemms.f, &gemms.b, &gemms.w}) {
    for (GemmShape& g : *phase) {
      g.fp8 = true;
      g.fp8_rate = fp8_gemm_rate(*tr.fp8, gpu.architecture);
    }
  }
  double inputs = 0, gradients = 0;
  for (const LinearTensors& l : gemms.linears) {
    inputs += l.input;
    gradients += l.gradient;
  }
  const double x = fp8_cast_bytes(*tr.fp8, gpu.architecture, Fp8Operand::Input) * inputs;
  w.f_bytes += x;
  w.b_bytes += fp8_cast_bytes(*tr.fp8, gpu.architecture, Fp8Operand::Gradient) * gradients;
  // The forward again, its casts too (by op, the recomputed products' casts are not counted).
  if (tr.recompute == Recompute::Full) w.b_bytes += x;
  apply_fp8_memory(w, gemms, tr);
}

}  // namespace pipeplan
