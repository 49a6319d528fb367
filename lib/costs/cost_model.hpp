#pragma once
// What each op costs in time and memory (docs/model.md, "Costs"). Times are milliseconds as the
// user writes them; the simulator converts them to nanoseconds once, with ms_to_ns.
#include <optional>
#include <vector>

#include "model/units.hpp"

namespace pipeplan {

/// Costs of one stage, for one micro-batch.
struct StageCost {
  double f_ms = 0.0;             ///< forward
  double b_ms = 0.0;             ///< gradient for the inputs
  double w_ms = 0.0;             ///< gradient for the weights; a fused BW takes b_ms + w_ms
  Bytes activation_bytes = 0;    ///< a_F: allocated by F, kept for the backward
  Bytes w_activation_bytes = 0;  ///< a_W: the part of a_F that B leaves for W (a_W <= a_F)
  /// An FB op whose forward is this stage's (DualPipe's overlapped pair). When unset, FB takes
  /// this stage's F plus the fused backward of the other stage, as if not overlapped.
  std::optional<double> f_and_b_ms;
  /// Working memory an op holds only while it runs, beside what it keeps (docs/model.md,
  /// "Memory"): F's (the loss's 16-bit logits beside their fp32 copy) and B's, which a fused BW
  /// and W-less B take too (a recomputed layer's activations, one layer at a time; the
  /// logits' 16-bit gradient beside the fp32 one).
  Bytes f_workspace_bytes = 0;
  Bytes b_workspace_bytes = 0;
  /// The activations one of the stage's layers keeps, where an FB whose forward or backward is
  /// this stage's runs the two layer by layer (Megatron-Core's combined 1F1B): 0 where the pair
  /// runs its forward whole before its backward (DualPipe's reference), holding both (fb_held_bytes).
  Bytes layer_activation_bytes = 0;
};

/// What an FB op holds at once beyond what its device held before it: the forward's activations
/// `forward`, or under a layer-by-layer pair (both stages' `layer_activation_bytes` above 0) the
/// most its layers hold before the backward's layers, one each step, release theirs (docs/model.md,
/// "Memory"). Megatron-Core's schedule plan runs forward layer i beside backward layer n - 1 - i
/// and frees the backward layer after the pair (model_chunk_schedule_plan.py at d98e8a64), so
/// after step i it holds (i + 1) f - i b of layers f and b: f, or at the last step F - B + b.
/// `forward` and `backward` are the two stages' activation_bytes, the `_layer`s their
/// layer_activation_bytes.
[[nodiscard]] Bytes fb_held_bytes(Bytes forward, Bytes forward_layer, Bytes backward, Bytes backward_layer);

/// Costs of one device.
struct DeviceCost {
  Bytes static_memory_bytes = 0;  ///< parameters, gradients, optimizer states
  double optimizer_ms = 0.0;      ///< the optimizer step after the last op
};

/// Time to move one micro-batch's activation (forward) or gradient (backward) between two
/// devices: either a fixed time or latency + bytes / bandwidth.
struct TransferCost {
  std::optional<double> fixed_ms;  ///< when set, every transfer takes this long
  double latency_ms = 0.0;
  double bandwidth_gb_per_s = 0.0;  ///< 1 GB = 1e9 bytes; must be > 0 when used
  Bytes bytes = 0;

  /// The time of one transfer, in milliseconds.
  [[nodiscard]] double ms() const;
};

struct CostModel {
  std::vector<StageCost> stages;
  std::vector<DeviceCost> devices;
  TransferCost transfer;  ///< every boundary's transfer, unless `boundaries` names them one by one
  /// Empty, or one transfer per stage boundary (stages - 1 of them): boundaries[s] moves stage s's
  /// activation to stage s + 1 and the gradient back, over whatever link joins the two devices
  /// (NVLink inside a node, the network across nodes). Replaces `transfer` when given.
  std::vector<TransferCost> boundaries;

  /// The time of one transfer across the boundary between stage `s` and stage `s + 1`, in ms.
  [[nodiscard]] double transfer_ms(int s) const;
  /// The longest transfer over every boundary: what a rule that takes one transfer time uses.
  [[nodiscard]] double max_transfer_ms() const;
};

/// Each boundary's transfer in nanoseconds, ms_to_ns(transfer_ms(s)) for s = 0 .. stages - 2: what a
/// simulator or a generator reads in its hot loop, converted once. Empty for fewer than two stages.
/// Throws Error when `boundaries` is neither empty nor one per boundary of `costs.stages`.
[[nodiscard]] std::vector<SimTime> boundary_transfer_ns(const CostModel& costs);

/// Every stage with the same costs, every device with no static memory and no optimizer time.
[[nodiscard]] CostModel uniform_costs(int stages, int devices, const StageCost& stage, double transfer_ms);

/// The costs of a pipeline of `stages` stages on `devices` devices. Costs with one stage per
/// device, each a device's share of the model, split into stages / devices chunks of 1/k of its
/// times and activation bytes, so one profile serves schedules with any number of chunks per
/// device. Throws Error when the costs describe neither `stages` stages nor `devices` stages
/// that divide `stages`, or when per-device costs that must be split carry per-boundary transfers
/// (which boundary a chunk's transfer crosses depends on a placement the profile does not know).
[[nodiscard]] CostModel costs_for_stages(const CostModel& costs, int stages, int devices);

/// When `costs` names no devices, gives each of `devices` devices no static memory and no
/// optimizer time; otherwise leaves `costs` as it is.
void default_devices(CostModel& costs, int devices);

/// Throws Error naming the field ("stages[2].f_ms", "boundaries[0].latency_ms") when a cost is
/// negative or not finite, a_W exceeds a_F, a bandwidth is not positive, or `boundaries` is
/// neither empty nor one per stage boundary.
void check_costs(const CostModel& costs);

/// Throws Error when `costs` does not describe `stages` stages on `devices` devices (and, when it
/// names boundaries, stages - 1 of them).
void check_dimensions(const CostModel& costs, int stages, int devices);

}  // namespace pipeplan
