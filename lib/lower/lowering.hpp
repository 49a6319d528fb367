#pragma once
// Lowering a compute schedule to the sends and receives each device posts (docs/model.md,
// "Communication"), with the policies runtimes use, and the checks a lowering must pass.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/lowered.hpp"
#include "model/problem.hpp"

namespace pipeplan {

/// Where the sends and receives go. Between two compute ops of a device (a gap) come the sends
/// of the op before and the receives of the op after.
enum class LowerPolicy : unsigned char {
  JustBefore,  ///< each receive right before its consumer, each send right after its producer
  Early,       ///< each receive one compute op ahead, before the sends of the op before it
  Megatron,    ///< just-before, each gap ordered by rank parity as Megatron-LM's _p2p_ops
  Batched,     ///< just-before, each gap posted as one group (batch_isend_irecv)
  Timed,       ///< every device posts in the order the transfers happen when overlapped: no
               ///< ordering deadlock and no mispairing, whatever the schedule
};

/// "just-before", "early", "megatron", "batched", and back.
[[nodiscard]] std::string_view policy_name(LowerPolicy policy);
[[nodiscard]] std::optional<LowerPolicy> parse_policy(std::string_view name);
[[nodiscard]] std::span<const LowerPolicy> all_policies();

/// The schedule with every cross-device dependency turned into a send after its producer and a
/// receive before its consumer, placed as `policy` says. The compute order is kept. `Timed`
/// simulates the schedule with `costs` (or unit costs when null) to order the transfers; the
/// schedule must then be complete and deadlock-free (Error otherwise).
[[nodiscard]] LoweredSchedule lower(const Schedule& schedule, LowerPolicy policy, const CostModel* costs = nullptr);

/// What makes a lowering unusable, every problem: a send on a device that does not hold its
/// stage or before the op that produces it, a receive after the op that needs it or missing,
/// a transfer with no matching post at the other end, and sends and receives of one device pair
/// posted in orders that pair the wrong ones (NCCL matches them in posting order per pair).
/// Empty when the lowering can run (it may still deadlock; the simulator says).
[[nodiscard]] std::vector<Problem> lowering_problems(const LoweredSchedule& lowered);

}  // namespace pipeplan
