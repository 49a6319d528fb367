#include "io/memory_estimate.hpp"

namespace pipeplan {

namespace {

Bytes digits(int below) {
  Bytes n = 1;
  for (int v = below - 1; v >= 10; v /= 10) ++n;
  return n;
}

}  // namespace

Bytes schedule_entry_bytes(int stages, int microbatches) {
  return 70 + digits(stages) + digits(microbatches);
}

long long generated_ops(const GenerateRequest& r) {
  return 3LL * r.devices * (r.chunks > 0 ? r.chunks : 1) * r.microbatches;
}

Bytes generation_bytes(const Generator& g, const GenerateRequest& r, int iterations, std::size_t workers,
                       bool as_text) {
  const long long ops = generated_ops(r);
  const int stages = r.devices * (r.chunks > 0 ? r.chunks : 1);
  Bytes bytes = schedule_bytes(ops);
  if (as_text) bytes += schedule_entry_bytes(stages, r.microbatches) * ops;
  if (g.uses_costs) {
    const auto held = static_cast<Bytes>(workers) + 2;
    bytes += held * (schedule_bytes(ops) + run_bytes({ops, iterations, false, false}));
  }
  return bytes;
}

Bytes timing_bytes(const RunShape& shape) {
  return schedule_bytes(shape.ops) + run_bytes(shape);
}

}  // namespace pipeplan
