#include "plan/training.hpp"

#include "model/name_fold.hpp"

namespace pipeplan {

std::optional<DType> dtype_named(std::string_view name) {
  if (same_name(name, "bf16")) return DType::BF16;
  if (same_name(name, "fp16")) return DType::FP16;
  if (same_name(name, "fp32")) return DType::FP32;
  return std::nullopt;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::BF16: return "bf16";
    case DType::FP16: return "fp16";
    case DType::FP32: return "fp32";
  }
  return "bf16";
}

std::optional<Recompute> recompute_named(std::string_view name) {
  if (same_name(name, "none")) return Recompute::None;
  if (same_name(name, "selective")) return Recompute::Selective;
  if (same_name(name, "full")) return Recompute::Full;
  return std::nullopt;
}

std::string_view recompute_name(Recompute recompute) {
  switch (recompute) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
  }
  return "none";
}

std::optional<Sharding> sharding_named(std::string_view name) {
  if (name == "none") return Sharding::None;
  if (name == "optimizer") return Sharding::Optimizer;
  if (name == "gradients") return Sharding::Gradients;
  return std::nullopt;
}

std::string_view sharding_name(Sharding sharding) {
  switch (sharding) {
    case Sharding::None: return "none";
    case Sharding::Optimizer: return "optimizer";
    case Sharding::Gradients: return "gradients";
  }
  return "none";
}

int element_bytes(DType dtype) { return dtype == DType::FP32 ? 4 : 2; }

}  // namespace pipeplan
