#pragma once
// How many bytes each send of `pipeplan-gpu replay` moves (docs/gpu.md): the profile's
// transfer size when it gives one, else one micro-batch's hidden state as the model makes it,
// sequence x micro-batch x hidden x element size, split over the tensor-parallel ranks (as the
// analytic profile counts it, docs/costs.md). A one-GPU calibration writes no transfer, and a
// measured one gives a time, not a size: without this replay would send one byte.
#include "calibrate/measured_pieces.hpp"
#include "costs/cost_model.hpp"
#include "model/units.hpp"

namespace pipeplan {

/// The activation one micro-batch sends between stages, per tensor-parallel rank.
[[nodiscard]] Bytes activation_message_bytes(const ModelConfig& model, const TrainingSettings& training);

/// The transfer's bytes when the profile's transfer has latency, bandwidth and bytes, else the
/// calibrated model's activation_message_bytes.
[[nodiscard]] Bytes replay_message_bytes(const TransferCost& transfer, const CalibratedProfile& calibrated);

/// What replay sends for `costs`: with a transfer per boundary, the largest size those with
/// latency, bandwidth and bytes give (replay sends every message at one size, and the activation
/// is the same hidden state at every boundary, so they agree in practice; the largest never sends
/// less than a boundary declares), else replay_message_bytes of `costs.transfer`.
[[nodiscard]] Bytes replay_message_bytes(const CostModel& costs, const CalibratedProfile& calibrated);

}  // namespace pipeplan
