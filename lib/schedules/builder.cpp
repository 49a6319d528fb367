#include "schedules/builder.hpp"

#include "model/error.hpp"
#include "model/placement.hpp"

namespace pipeplan {

void check_request(std::string_view schedule, const GenerateRequest& r, const RequestRules& rules) {
  std::string name(schedule);
  if (r.devices < 1 || r.devices > kMaxDevices) {
    throw Error(name + ": needs 1 to " + std::to_string(kMaxDevices) + " stages, got " + std::to_string(r.devices));
  }
  if (r.microbatches < 1 || r.microbatches > kMaxMicrobatches) {
    throw Error(name + ": needs 1 to " + std::to_string(kMaxMicrobatches) + " micro-batches, got " +
                std::to_string(r.microbatches));
  }
  if (r.chunks < rules.min_chunks || r.chunks > rules.max_chunks) {
    std::string range = rules.min_chunks == rules.max_chunks
                            ? std::to_string(rules.min_chunks)
                            : std::to_string(rules.min_chunks) + " to " + std::to_string(rules.max_chunks);
    throw Error(name + ": runs " + range + " chunk" + (rules.max_chunks == 1 ? "" : "s") +
                " per device, got " + std::to_string(r.chunks));
  }
  long long ops = 3LL * r.devices * r.chunks * r.microbatches;
  if (ops > kMaxOps) {
    throw Error(name + ": " + std::to_string(r.devices) + " stages x " + std::to_string(r.chunks) + " chunks x " +
                std::to_string(r.microbatches) + " micro-batches is up to " + std::to_string(ops) +
                " ops, more than the limit of " + std::to_string(kMaxOps) +
                " that keeps a schedule within a few GiB of memory");
  }
  if (r.microbatches < rules.min_microbatches) {
    throw Error(name + ": needs at least " + std::string(rules.min_microbatches_rule) + " = " +
                std::to_string(rules.min_microbatches) + " micro-batches for " + std::to_string(r.devices) +
                " stages, got " + std::to_string(r.microbatches));
  }
}

Schedule empty_schedule(std::string_view name, const GenerateRequest& r, std::vector<int> placement) {
  Schedule s;
  s.name = std::string(name);
  s.devices = r.devices;
  s.stages = static_cast<int>(placement.size());
  s.microbatches = r.microbatches;
  s.placement = std::move(placement);
  s.order.resize(static_cast<std::size_t>(r.devices));
  return s;
}

Schedule single_chunk_schedule(std::string_view name, const GenerateRequest& r) {
  return empty_schedule(name, r, loop_placement(r.devices, 1));
}

}  // namespace pipeplan
