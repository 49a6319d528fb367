#include "calibrate/message_size.hpp"

#include <algorithm>
#include <cstdint>

namespace pipeplan {

Bytes activation_message_bytes(const ModelConfig& m, const TrainingSettings& tr) {
  return static_cast<Bytes>(std::int64_t{tr.seq} * tr.micro_batch * m.hidden * element_bytes(tr.dtype) / tr.tp);
}

Bytes replay_message_bytes(const TransferCost& transfer, const CalibratedProfile& calibrated) {
  if (!transfer.fixed_ms && transfer.bytes > 0) return transfer.bytes;
  return activation_message_bytes(calibrated.model, calibrated.training);
}

Bytes replay_message_bytes(const CostModel& costs, const CalibratedProfile& calibrated) {
  Bytes largest = 0;
  for (const TransferCost& t : costs.boundaries) {
    if (!t.fixed_ms) largest = std::max(largest, t.bytes);
  }
  if (largest > 0) return largest;
  return replay_message_bytes(costs.transfer, calibrated);
}

}  // namespace pipeplan
