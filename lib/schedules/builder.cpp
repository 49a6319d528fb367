#include "schedules/builder.hpp"

#include "model/error.hpp"
#include "model/placement.hpp"

namespace pipeplan {

void check_single_chunk_request(std::string_view schedule, const GenerateRequest& r,
                                int min_microbatches, std::string_view rule) {
  std::string name(schedule);
  if (r.devices < 1 || r.devices > kMaxDevices) {
    throw Error(name + ": needs 1 to " + std::to_string(kMaxDevices) + " stages, got " +
                std::to_string(r.devices));
  }
  if (r.microbatches < 1 || r.microbatches > kMaxMicrobatches) {
    throw Error(name + ": needs 1 to " + std::to_string(kMaxMicrobatches) + " micro-batches, got " +
                std::to_string(r.microbatches));
  }
  if (r.chunks != 1) {
    throw Error(name + ": runs one chunk per device, got " + std::to_string(r.chunks) + " chunks");
  }
  long long ops = 3LL * r.devices * r.microbatches;
  if (ops > kMaxOps) {
    throw Error(name + ": " + std::to_string(r.devices) + " stages x " + std::to_string(r.microbatches) +
                " micro-batches is up to " + std::to_string(ops) + " ops, more than the limit of " +
                std::to_string(kMaxOps) + " that keeps a schedule within a few GiB of memory");
  }
  if (r.microbatches < min_microbatches) {
    throw Error(name + ": needs at least " + std::string(rule) + " = " + std::to_string(min_microbatches) +
                " micro-batches for " + std::to_string(r.devices) + " stages, got " +
                std::to_string(r.microbatches));
  }
}

Schedule single_chunk_schedule(std::string_view name, const GenerateRequest& r) {
  Schedule s;
  s.name = std::string(name);
  s.devices = r.devices;
  s.stages = r.devices;
  s.microbatches = r.microbatches;
  s.placement = loop_placement(r.devices, 1);
  s.order.resize(static_cast<std::size_t>(r.devices));
  return s;
}

}  // namespace pipeplan
