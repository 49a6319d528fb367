#pragma once
// The GPU side of `pipeplan-gpu replay` (docs/gpu.md): one rank per device, each with the
// calibrated kernels, its message buffers, the events around its compute ops and an NCCL
// communicator; one step runs every rank's program on a thread of its own and waits for the
// devices under a watchdog. The NCCL posts go on each rank's compute stream: the `blocking`
// mode the prediction uses (calibrate/replay_plan.hpp).
#include <memory>
#include <vector>

#include "calibrate/measured_pieces.hpp"
#include "calibrate/replay_comparison.hpp"
#include "cuda_owners.hpp"
#include "nccl_comms.hpp"
#include "piece_runner.hpp"

namespace pipeplan::gpu {

struct ReplayRank {
  int device = 0;
  std::unique_ptr<PieceRunner> runner;
  DeviceBuffer send, recv;
  Event base;                 ///< recorded on every device once all are idle
  std::vector<Event> events;  ///< two per compute op, in program order
  std::size_t next_event = 0;
};

class ReplayRanks {
 public:
  /// Sets up a rank on each of the program's devices, sending `bytes` a message.
  ReplayRanks(const ReplayProgram& program, const CalibratedProfile& calibrated, std::size_t bytes);

  /// Runs one step; throws GpuError (after aborting NCCL) when a rank fails or the devices do
  /// not finish within `watchdog_s` seconds.
  void step(double watchdog_s);

  /// The last step's times, per rank in program order.
  [[nodiscard]] std::vector<std::vector<MeasuredOp>> times() const;

 private:
  void wait_for_devices(double watchdog_s);

  const ReplayProgram& program_;
  const CalibratedProfile& calibrated_;
  std::size_t bytes_;
  std::vector<ReplayRank> ranks_;
  std::unique_ptr<NcclComms> comms_;  ///< last: aborted or destroyed before the buffers go
};

}  // namespace pipeplan::gpu
