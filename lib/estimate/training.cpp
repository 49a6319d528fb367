#include "estimate/training.hpp"

namespace pipeplan {

std::optional<DType> dtype_named(std::string_view name) {
  return enum_named(kDTypes, name);
}

std::string_view dtype_name(DType dtype) {
  return enum_name(kDTypes, dtype);
}

std::optional<Recompute> recompute_named(std::string_view name) {
  return enum_named(kRecomputes, name);
}

std::string_view recompute_name(Recompute recompute) {
  return enum_name(kRecomputes, recompute);
}

std::string recompute_text(Recompute recompute, RecomputeModules modules) {
  std::string text(recompute_name(recompute));
  if (recompute == Recompute::Selective) text += " (" + recompute_modules_names(modules, ", ") + ")";
  return text;
}

std::optional<Sharding> sharding_named(std::string_view name) {
  return enum_named(kShardings, name);
}

std::string_view sharding_name(Sharding sharding) {
  return enum_name(kShardings, sharding);
}

std::optional<Loss> loss_named(std::string_view name) {
  return enum_named(kLosses, name);
}

std::string_view loss_name(Loss loss) {
  return enum_name(kLosses, loss);
}

std::optional<MoeDispatcher> moe_dispatcher_named(std::string_view name) {
  return enum_named(kMoeDispatchers, name);
}

std::string_view moe_dispatcher_name(MoeDispatcher dispatcher) {
  return enum_name(kMoeDispatchers, dispatcher);
}

std::optional<CudaGraphs> cuda_graphs_named(std::string_view name) {
  return enum_named(kCudaGraphs, name);
}

std::string_view cuda_graphs_name(CudaGraphs graphs) {
  return enum_name(kCudaGraphs, graphs);
}

std::optional<FsdpImpl> fsdp_impl_named(std::string_view name) {
  return enum_named(kFsdpImpls, name);
}

std::optional<TpOverlapMethod> tp_overlap_method_named(std::string_view name) {
  return enum_named(kTpOverlapMethods, name);
}

std::optional<AttentionKernel> attention_kernel_named(std::string_view name) {
  return enum_named(kAttentionKernels, name);
}

std::string_view attention_kernel_name(AttentionKernel kernel) {
  return enum_name(kAttentionKernels, kernel);
}

std::optional<Elementwise> elementwise_named(std::string_view name) {
  return enum_named(kElementwises, name);
}

std::string_view elementwise_name(Elementwise elementwise) {
  return enum_name(kElementwises, elementwise);
}

std::optional<Fp8Recipe> fp8_recipe_named(std::string_view name) {
  return enum_named(kFp8Recipes, name);
}

std::string_view fp8_recipe_name(Fp8Recipe recipe) {
  return enum_name(kFp8Recipes, recipe);
}

int element_bytes(DType dtype) {
  return dtype == DType::FP32 ? 4 : 2;
}

std::string precision_name(const Precision& p) {
  return p.fp8 ? "fp8 " + std::string(fp8_recipe_name(*p.fp8)) : std::string(dtype_name(p.dtype));
}

}  // namespace pipeplan
