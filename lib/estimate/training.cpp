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

std::optional<Sharding> sharding_named(std::string_view name) {
  return enum_named(kShardings, name);
}

std::string_view sharding_name(Sharding sharding) {
  return enum_name(kShardings, sharding);
}

int element_bytes(DType dtype) {
  return dtype == DType::FP32 ? 4 : 2;
}

}  // namespace pipeplan
