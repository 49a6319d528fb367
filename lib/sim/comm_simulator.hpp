#pragma once
// Timing a lowered schedule with its sends and receives (docs/model.md, "Communication"):
// `blocking` runs them on each device's compute stream, `rendezvous` on a communication stream
// of their own; in both a transfer starts only when the sender has posted it, its data exists
// and the receiver has posted the matching receive (NCCL's semantics, pairs matched in posting
// order), and transfers of one link (one direction of a device pair) run one at a time.
// It returns records, never sentences: validate/deadlock_text.hpp puts a stuck device in words.
#include <optional>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/lowered.hpp"
#include "sim/comm_mode.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// One transfer as it ran.
struct TransferTiming {
  int from_device = 0;
  int to_device = 0;
  int iteration = 0;
  CommOp send;  ///< SEND_F or SEND_B; the receive is send.matching()
  SimTime start = 0;
  SimTime end = 0;
};

/// Why a device cannot go on when a run with communication deadlocks.
enum class StuckReason : unsigned char {
  AtCompute,      ///< its next entry, a compute op or the end of its list, cannot run
  DataNotReady,   ///< it cannot post its next group: a send's data is not produced yet
  LinkBusy,       ///< both ends posted; the transfer waits for the one before it on the link
  PeerNotPosted,  ///< the peer has not posted the matching send or receive
  Unexplained,    ///< none of the above (kept so that every stuck device is listed)
};

/// One device that cannot go on: where it stands and, for a send or receive, on whom it waits.
struct StuckDevice {
  int device = 0;
  StuckReason reason = StuckReason::Unexplained;
  /// AtCompute: the compute op (none: the end of its list); otherwise the send or receive
  /// that cannot complete (Unexplained: none).
  std::optional<LoweredAction> post;
  int peer = -1;  ///< the device at the other end of `post` when it is a send or receive
  /// PeerNotPosted: what the peer posts next instead (none: the end of its list).
  std::optional<LoweredAction> peer_next;
};

struct CommSimResult {
  /// As simulate() gives it: deadlock lists each stuck device's next compute op, and
  /// deadlock_cycle the devices whose posts wait on each other.
  SimResult result;
  std::vector<TransferTiming> transfers;
  std::vector<StuckDevice> stuck;  ///< when it deadlocks: each stuck device, in device order
};

/// Times `lowered` under `mode` (Blocking or Rendezvous; Overlap is simulate() on the compute
/// schedule). Throws Error when the lowering has problems (lowering_problems), the compute
/// schedule cannot be timed, or the costs do not fit. A deadlock is not an error.
[[nodiscard]] CommSimResult simulate_with_comm(const LoweredSchedule& lowered, const CostModel& costs, CommMode mode,
                                               const SimOptions& options = {});

}  // namespace pipeplan
