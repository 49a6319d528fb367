#pragma once
// Shared plumbing of the single-chunk handcrafted generators: the request checks and a schedule
// with the plain placement (stage d on device d) whose lists the generator fills.
#include <string>
#include <string_view>

#include "model/schedule.hpp"
#include "schedules/generator.hpp"

namespace pipeplan {

/// Throws Error naming `schedule` unless the request is within bounds, has one chunk, and has
/// at least `min_microbatches` micro-batches (`rule` says why, e.g. "P" or "2P-1").
void check_single_chunk_request(std::string_view schedule, const GenerateRequest& request,
                                int min_microbatches, std::string_view rule);

/// An empty schedule of P devices and P stages, stage d on device d.
[[nodiscard]] Schedule single_chunk_schedule(std::string_view name, const GenerateRequest& request);

/// Appends to one device's list, naming ops by micro-batch only (the device's own stage).
class DeviceOrder {
 public:
  DeviceOrder(Schedule& schedule, int device)
      : ops_(schedule.order[static_cast<std::size_t>(device)]), stage_(device) {}
  void add(OpKind kind, int microbatch) { ops_.push_back({kind, stage_, microbatch}); }

 private:
  std::vector<Op>& ops_;
  int stage_;
};

}  // namespace pipeplan
