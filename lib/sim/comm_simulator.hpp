#pragma once
// Timing a lowered schedule with its sends and receives (docs/model.md, "Communication"):
// `blocking` runs them on each device's compute stream, `rendezvous` on a communication stream
// of their own; in both a transfer starts only when the sender has posted it, its data exists
// and the receiver has posted the matching receive (NCCL's semantics, pairs matched in posting
// order), and transfers of one link (one direction of a device pair) run one at a time.
#include <string>
#include <string_view>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/lowered.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

enum class CommMode : unsigned char {
  Overlap,     ///< transfers run beside compute and delay only their consumer (simulate())
  Blocking,    ///< sends and receives on the compute stream of both ends
  Rendezvous,  ///< sends and receives on a communication stream per device
};

/// "overlap", "blocking", "rendezvous", and back.
[[nodiscard]] std::string_view comm_mode_name(CommMode mode);
[[nodiscard]] std::optional<CommMode> parse_comm_mode(std::string_view name);

/// One transfer as it ran.
struct TransferTiming {
  int from_device = 0;
  int to_device = 0;
  int iteration = 0;
  CommOp send;      ///< SEND_F or SEND_B; the receive is send.matching()
  SimTime start = 0;
  SimTime end = 0;
};

struct CommSimResult {
  SimResult result;  ///< as simulate() gives it; deadlock lists each stuck device's next compute op
  std::vector<TransferTiming> transfers;
  /// When it deadlocks: one line per stuck device saying what its next post waits for, and
  /// the cycle of devices waiting on each other ("device 0 -> device 1 -> device 0"), if any.
  std::vector<std::string> stuck;
  std::string cycle;
};

/// Times `lowered` under `mode` (Blocking or Rendezvous; Overlap is simulate() on the compute
/// schedule). Throws Error when the lowering has problems (lowering_problems), the compute
/// schedule cannot be timed, or the costs do not fit. A deadlock is not an error.
[[nodiscard]] CommSimResult simulate_with_comm(const LoweredSchedule& lowered, const CostModel& costs, CommMode mode,
                                               const SimOptions& options = {});

}  // namespace pipeplan
