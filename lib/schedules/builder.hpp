#pragma once
// Shared plumbing of the handcrafted generators: the request checks, an empty schedule with a
// placement, and appending ops to one device's list.
#include <string>
#include <string_view>
#include <vector>

#include "model/schedule.hpp"
#include "schedules/generator.hpp"

namespace pipeplan {

/// Throws Error naming `schedule` unless the request is within the global bounds (limits.hpp)
/// and within what the generator's row in the registry says: its chunks, its fewest
/// micro-batches and, for a row that follows PyTorch's rounds and has no --group, M split into
/// them.
void check_request(std::string_view schedule, const GenerateRequest& request);

/// PyTorch's "flexible rounds" (ScheduleInterleaved1F1B, ScheduleInterleavedZeroBubble):
/// R = max(1, floor(M/P)) rounds of M/R micro-batches each. Returns M/R; throws Error naming
/// `schedule` and the nearest M that fit when R does not divide M, as PyTorch refuses those.
[[nodiscard]] int microbatches_per_round(std::string_view schedule, const GenerateRequest& request);

/// An empty schedule of P devices and P*V stages with the given placement.
[[nodiscard]] Schedule empty_schedule(std::string_view name, const GenerateRequest& request,
                                      std::vector<int> placement);

/// An empty schedule of P devices and P stages, stage d on device d.
[[nodiscard]] Schedule single_chunk_schedule(std::string_view name, const GenerateRequest& request);

/// Appends to one device's list. `add` names the op by micro-batch alone and runs it on the
/// device's first stage; `add_at` names the stage.
class DeviceOrder {
 public:
  DeviceOrder(Schedule& schedule, int device)
      : ops_(schedule.order[static_cast<std::size_t>(device)]), stage_(device) {}
  void add(OpKind kind, int microbatch) { ops_.push_back({kind, stage_, microbatch}); }
  void add_at(OpKind kind, int stage, int microbatch) { ops_.push_back({kind, stage, microbatch}); }
  void add(const Op& op) { ops_.push_back(op); }

 private:
  std::vector<Op>& ops_;
  int stage_;
};

}  // namespace pipeplan
