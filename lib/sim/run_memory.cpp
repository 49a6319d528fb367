#include "sim/run_memory.hpp"

#include <cstdint>

#include "model/lowered.hpp"
#include "model/op.hpp"
#include "sim/comm_plan.hpp"
#include "sim/comm_simulation.hpp"
#include "sim/sim_result.hpp"
#include "sim/simulator.hpp"

namespace pipeplan {

namespace {

// Sizes as Bytes: every count here is below kMaxOps x the iterations' limit, far from overflow.
template <typename T>
constexpr Bytes size_of() {
  return static_cast<Bytes>(sizeof(T));
}

}  // namespace

Bytes schedule_bytes(long long ops) {
  return 2 * size_of<Op>() * ops;
}

Bytes run_bytes(const RunShape& shape) {
  const Bytes op_iterations = static_cast<Bytes>(shape.ops) * shape.iterations;
  // SimWorkspace: forward_end, gradient_end and split_b_end, one SimTime per iteration, stage
  // and micro-batch each; a stage and micro-batch has at least one op.
  Bytes bytes = 3 * size_of<SimTime>() * op_iterations;
  if (shape.timeline) {
    bytes += (size_of<OpTiming>() + size_of<MemoryPoint>() + size_of<const OpTiming*>()) * op_iterations;
  }
  if (shape.comm) {
    const Bytes ops = shape.ops;
    const Bytes posts = 2 * ops;  // a receive of its input and a send of its output, at most
    bytes += size_of<Op>() * ops + size_of<LoweredAction>() * (ops + posts);  // the lowered copy
    bytes += size_of<sim::PostItem>() * ops + size_of<sim::CommSlot>() * posts + size_of<std::uint32_t>() * posts;
    bytes += static_cast<Bytes>(sim::CommSimulation::transfer_state_bytes()) * op_iterations;  // a send each
  }
  return bytes;
}

}  // namespace pipeplan
