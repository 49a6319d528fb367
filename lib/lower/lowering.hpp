#pragma once
// Lowering a compute schedule to the sends and receives each device posts (docs/model.md,
// "Communication"), with the policies runtimes use. What a lowering must pass is a question about
// the lowered schedule alone: model/lowering_problems.hpp, included here for the callers.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/enum_table.hpp"
#include "model/lowered.hpp"
#include "model/lowering_problems.hpp"
#include "sim/comm_mode.hpp"

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

inline constexpr EnumTable<LowerPolicy, 5> kLowerPolicies = {{
    {"just-before", LowerPolicy::JustBefore, "each receive right before its consumer, each send after its producer"},
    {"early", LowerPolicy::Early, "each receive one compute op ahead"},
    {"megatron", LowerPolicy::Megatron, "just-before, each gap ordered by rank parity as Megatron-LM"},
    {"batched", LowerPolicy::Batched, "just-before, each gap posted as one group (batch_isend_irecv)"},
    {"timed", LowerPolicy::Timed, "in the order the overlapped run makes the transfers: never deadlocks or mispairs"},
}};

/// "just-before", "early", "megatron", "batched", "timed", and back (kLowerPolicies).
[[nodiscard]] std::string_view policy_name(LowerPolicy policy);
[[nodiscard]] std::optional<LowerPolicy> parse_policy(std::string_view name);
[[nodiscard]] std::span<const LowerPolicy> all_policies();

/// The schedule with every cross-device dependency turned into a send after its producer and a
/// receive before its consumer, placed as `policy` says. The compute order is kept. `Timed`
/// simulates the schedule with `costs` (or unit costs when null) to order the transfers; the
/// schedule must then be complete and deadlock-free (Error otherwise). `mode` is what the
/// lowering will run under, which only `Timed` reads: under Blocking its receives are placed for
/// a compute stream that waits on them, of two placements the one whose blocking step is
/// shorter (docs/model.md, "Communication"); otherwise each receive goes in the gap before the op
/// during which its data arrives, posted ahead as a stream of its own (or PyTorch's irecv) wants.
[[nodiscard]] LoweredSchedule lower(const Schedule& schedule, LowerPolicy policy, const CostModel* costs = nullptr,
                                    CommMode mode = CommMode::Rendezvous);

}  // namespace pipeplan
