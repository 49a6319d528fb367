#include "estimate/fsdp.hpp"

#include <algorithm>

namespace pipeplan {

double fsdp_sharded_bytes_per_parameter(int shards, double gradient) {
  return (12.0 + gradient) / std::max(shards, 1);
}

double fsdp_unsharded_bytes_per_parameter(DType dtype, bool pipelined, double gradient) {
  return pipelined ? element_bytes(dtype) + gradient : 0.0;
}

double fsdp_in_flight_bytes(double largest_unit_params, DType dtype, double gradient) {
  return 2 * largest_unit_params * (element_bytes(dtype) + gradient);
}

FsdpUnitMs fsdp_unit_ms(double params, DType dtype, int shards, const LinkSpec& link, double gradient) {
  if (shards <= 1 || params <= 0) return {};
  const double ring = (shards - 1.0) / shards;
  return {link.collective_ms(ring * params * element_bytes(dtype)), link.collective_ms(ring * params * gradient)};
}

FsdpCopyBytes fsdp_copy_bytes(double params, DType dtype, int shards, double gradient) {
  if (shards <= 1 || params <= 0) return {};
  const double e = element_bytes(dtype);
  return {2 * e * params, (e + gradient) * params};
}

FsdpExposedMs fsdp_exposed_per_unit(const FsdpUnitMs& unit, double f_ms, double b_ms, double w_ms) {
  return {std::max(0.0, unit.gather_ms - f_ms), std::max(0.0, unit.gather_ms + unit.reduce_ms - (b_ms + w_ms))};
}

double fsdp_step_exposed_ms(const FsdpUnitMs& device, double first_forward_ms) {
  return device.reduce_ms + std::max(0.0, device.gather_ms - first_forward_ms);
}

}  // namespace pipeplan
