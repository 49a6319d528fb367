#include "estimate/data_parallel_replicas.hpp"

#include "estimate/fsdp.hpp"

namespace pipeplan {

int static_bytes_per_parameter(DType dtype) {
  return dtype == DType::FP32 ? 16 : 18;
}

double static_bytes_per_parameter(DType dtype, Sharding sharding, int data_parallel, double gradient) {
  const double d = data_parallel;
  const double weight = element_bytes(dtype);
  const double states = dtype == DType::FP32 ? 8 : 12;
  switch (sharding) {
    case Sharding::None:
      return weight + gradient + states;
    case Sharding::Optimizer:
      return weight + gradient + states / d;
    case Sharding::Gradients:
      return weight + (gradient + states) / d;
    case Sharding::Params:
      return fsdp_sharded_bytes_per_parameter(data_parallel, gradient);
  }
  return weight + gradient + states;
}

double Replicas::gradient_scatter_ms(double params, const LinkSpec& link) const {
  return sharding() == Sharding::Gradients ? link.collective_ms(ring() * params * gradient) : 0.0;
}

DataParallelMs Replicas::collectives(double params, DType dtype, const LinkSpec& link) const {
  if (count <= 1) return {};
  const double weight_bytes = element_bytes(dtype);
  switch (sharding()) {
    case Sharding::None:
      return {link.collective_ms(2 * ring() * params * gradient), 0.0};
    case Sharding::Optimizer:
      return {link.collective_ms(ring() * params * gradient), link.collective_ms(ring() * params * weight_bytes)};
    case Sharding::Gradients:
      return {0.0, link.collective_ms(ring() * params * weight_bytes)};
    case Sharding::Params: {
      if (!pipelined) return {};
      const FsdpUnitMs u = fsdp_unit_ms(params, dtype, count, link, gradient);
      return {u.reduce_ms, u.gather_ms};
    }
  }
  return {};
}

ReplicaStep Replicas::step(double params, DType dtype, const LinkSpec& link) const {
  ReplicaStep s;
  s.static_bytes = params * static_bytes_per_parameter(dtype, sharding(), count, gradient);
  if (sharding() == Sharding::Params)
    s.static_bytes += params * fsdp_unsharded_bytes_per_parameter(dtype, pipelined, gradient);
  // Adam reads the gradient, master weight and both moments and writes all but the gradient
  // back, plus the 16-bit weight copy: 28 bytes a parameter in fp32, 30 with 16-bit weights
  // (FSDP's fp32 sharded parameter is its own master: 28); sharded, each rank steps its 1/d.
  const double shard = sharding() == Sharding::None ? 1.0 : count;
  const double adam = dtype == DType::FP32 || sharding() == Sharding::Params ? 28 : 30;
  s.adam_bytes = params * adam / shard;
  s.collectives = collectives(params, dtype, link);
  return s;
}

}  // namespace pipeplan
