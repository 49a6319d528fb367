#include "lower/lowering.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <tuple>

#include "model/dependencies.hpp"
#include "model/error.hpp"
#include "model/post_tables.hpp"
#include "sim/comm_simulator.hpp"
#include "sim/simulator.hpp"
#include "sim/transfer_rule.hpp"

namespace pipeplan {

namespace {

constexpr std::array kPolicies = {LowerPolicy::JustBefore, LowerPolicy::Early, LowerPolicy::Megatron,
                                  LowerPolicy::Batched, LowerPolicy::Timed};
static_assert(kPolicies.size() == kLowerPolicies.size());

// Megatron-LM's _p2p_ops: even ranks send to the next rank, receive from the previous, send to
// the previous, receive from the next; odd ranks receive from the previous, send to the next,
// receive from the next, send to the previous. Next and previous follow the stages.
int megatron_rank(const CommOp& c, bool even) {
  static constexpr std::array<int, 4> kEven = {0, 1, 2, 3};  // SEND_F, RECV_F, SEND_B, RECV_B
  static constexpr std::array<int, 4> kOdd = {1, 0, 3, 2};
  return (even ? kEven : kOdd)[static_cast<std::size_t>(c.kind)];
}

void append_gap(std::vector<LoweredAction>& out, std::vector<CommOp> gap, LowerPolicy policy, int device) {
  if (policy == LowerPolicy::Megatron) {
    std::stable_sort(gap.begin(), gap.end(), [even = device % 2 == 0](const CommOp& a, const CommOp& b) {
      return megatron_rank(a, even) < megatron_rank(b, even);
    });
  }
  for (std::size_t i = 0; i < gap.size(); ++i) {
    out.push_back(LoweredAction::communicate(gap[i], policy == LowerPolicy::Batched && i > 0));
  }
}

// The timed policy. Every transfer gets one key, the same at both ends: when its data is
// produced in the overlapped run, then its producer's rank (below), then its direction, stage and
// micro-batch. Each device posts its sends and receives in key order, each in the gap where the
// overlapped run was at that time (after every op that had ended by then): a send right after
// its producer, a receive where its data arrived, before its consumer. Every device then meets
// the transfers in one global order, so the pairs match and none waits for a post queued behind
// its own.
// The order must hold when times are equal: ops of 0 ns (an empty stage, a profile rounded to
// zero) end at one instant along a whole chain of dependencies (issue 31, item 2). So the second
// field is the producer's end in a run where every op takes 1 and transfers nothing, which grows
// strictly along every dependency and every device's list: when a receive must come before an
// op whose send follows it on one device, the receive's producer happens before that op, and its
// key is the smaller even at one instant.
using TransferKey = std::tuple<SimTime, SimTime, int, int, int>;  // end, rank, kind, stage, micro-batch

// Where a receive whose data arrives during a compute op goes: before that op (Arrival: posted
// ahead, as a receive on a stream of its own wants), or at whichever end of the op is nearer the
// arrival (Nearest: a receive that holds the compute stream delays that op by what is left of the
// transfer before it, or its sender's blocking send by what is left of the op after it).
enum class ReceiveGap : unsigned char { Arrival, Nearest };

// One step of `lowered` under blocking communication; a deadlock (which the timed order rules
// out) as the longest.
SimTime blocking_step(const LoweredSchedule& lowered, const CostModel& costs) {
  const CommSimResult run = simulate_with_comm(lowered, costs, CommMode::Blocking);
  return run.stuck.empty() ? run.result.step_time() : std::numeric_limits<SimTime>::max();
}

// The timed lowering for `mode`. The overlapped run, the keys and each device's posts in key
// order are made once; the posts are then placed in gaps. Under blocking neither placement of
// the receives is always the faster (a receive posted early holds its own device, one posted
// late holds its sender's blocking send): both are placed and timed, and the faster kept, the
// arrival's on a tie.
LoweredSchedule lower_timed(const Schedule& schedule, const CostModel* costs, CommMode mode) {
  const CostModel unit = uniform_costs(schedule.stages, schedule.devices, StageCost{1, 1, 1, 0, 0}, 0);
  const CostModel& used = costs != nullptr ? *costs : unit;
  SimResult run = simulate(schedule, used);
  if (run.deadlocked()) throw Error("timed lowering: the schedule deadlocks even with overlapped transfers");
  // The ranks: the same schedule with unit ops and free transfers (it cannot deadlock when the
  // run above did not; only the times differ).
  const SimResult ranked = costs != nullptr ? simulate(schedule, unit) : run;
  // When each output is produced, and its producer's rank: forward (kind 0) and input gradient
  // (kind 1) per stage and micro-batch, in one flat table.
  const auto slot = [&](int kind, int stage, int mb) {
    return (static_cast<std::size_t>(kind) * static_cast<std::size_t>(schedule.stages) +
            static_cast<std::size_t>(stage)) *
               static_cast<std::size_t>(schedule.microbatches) +
           static_cast<std::size_t>(mb);
  };
  std::vector<SimTime> produced(slot(2, 0, 0), -1);
  std::vector<SimTime> rank(slot(2, 0, 0), -1);
  std::vector<std::vector<SimTime>> ends(run.devices.size());    // each device's op ends, in list order
  std::vector<std::vector<SimTime>> starts(run.devices.size());  // and starts
  const auto record = [&](const OpTiming& t, std::vector<SimTime>& table) {
    if (t.op.kind == OpKind::F || t.op.kind == OpKind::FB) table[slot(0, t.op.stage, t.op.microbatch)] = t.end;
    const Op backward = t.op.kind == OpKind::FB ? t.op.backward_part() : t.op;
    if (gives_input_gradient(backward.kind)) table[slot(1, backward.stage, backward.microbatch)] = t.end;
  };
  for (std::size_t d = 0; d < run.devices.size(); ++d) {
    for (const OpTiming& t : run.devices[d].ops) {
      ends[d].push_back(t.end);
      starts[d].push_back(t.start);
      record(t, produced);
    }
    for (const OpTiming& t : ranked.devices[d].ops) record(t, rank);
  }
  const auto key_of = [&](const CommOp& c) -> TransferKey {
    const CommOp send = c.is_send() ? c : c.matching();
    const int kind = send.kind == CommKind::SendF ? 0 : 1;
    const std::size_t at = slot(kind, send.stage, send.microbatch);
    return {produced[at], rank[at], kind, send.stage, send.microbatch};
  };
  const TransferRule transfer(used);
  // Each send or receive with its key, the gaps it may take (gap g is before ops[g]) and the
  // time its data was made (a send) or arrived (a receive) in the overlapped run.
  struct Placed {
    TransferKey key;
    CommOp comm;
    std::size_t earliest, latest;
    SimTime when;
  };
  std::vector<std::vector<Placed>> posts(schedule.order.size());
  // The latest gap each post may take so that every post after it in key order still fits
  // before its consumer: a post is never pushed past it, so the gaps grow along the keys. The
  // ranks make this always possible: a send in key order before a receive comes from an op
  // before that receive's consumer.
  std::vector<std::vector<std::size_t>> caps(schedule.order.size());
  for (std::size_t d = 0; d < schedule.order.size(); ++d) {
    const int device = static_cast<int>(d);
    const std::vector<Op>& ops = schedule.order[d];
    std::vector<Placed>& comms = posts[d];
    const auto add = [&](const CommOp& c, std::size_t earliest, std::size_t latest) {
      const TransferKey key = key_of(c);
      const CommOp send = c.is_send() ? c : c.matching();
      const int from = schedule.placement[static_cast<std::size_t>(send.stage)];
      const SimTime made = std::get<0>(key);
      comms.push_back(
          {key, c, earliest, latest, c.is_send() ? made : transfer.arrival(made, from, device, c.boundary())});
    };
    for (std::size_t i = 0; i < ops.size(); ++i) {
      for (const CommOp& r : receives_of(schedule, ops[i], device)) add(r, 0, i);
      for (const CommOp& c : sends_of(schedule, ops[i], device)) add(c, i + 1, ops.size());
    }
    std::stable_sort(comms.begin(), comms.end(), [](const Placed& a, const Placed& b) { return a.key < b.key; });
    std::vector<std::size_t>& cap = caps[d];
    cap.assign(comms.size() + 1, ops.size());
    for (std::size_t i = comms.size(); i-- > 0;) cap[i] = std::min(cap[i + 1], comms[i].latest);
  }
  const auto place = [&](ReceiveGap receives) {
    LoweredSchedule out{schedule, std::string(policy_name(LowerPolicy::Timed)), {}};
    out.actions.resize(schedule.order.size());
    for (std::size_t d = 0; d < schedule.order.size(); ++d) {
      const std::vector<Op>& ops = schedule.order[d];
      std::vector<std::vector<CommOp>> gaps(ops.size() + 1);
      std::size_t gap = 0;
      for (std::size_t i = 0; i < posts[d].size(); ++i) {
        const Placed& c = posts[d][i];
        // The gap after every op that had ended when the send's data was made or the receive's
        // arrived (or, for a Nearest receive, after the op it arrived in when that op was more
        // than half done); kept growing along the keys.
        auto at_time =
            static_cast<std::size_t>(std::upper_bound(ends[d].begin(), ends[d].end(), c.when) - ends[d].begin());
        if (receives == ReceiveGap::Nearest && !c.comm.is_send() && at_time < ops.size() &&
            starts[d][at_time] < c.when && c.when - starts[d][at_time] > ends[d][at_time] - c.when) {
          ++at_time;
        }
        gap = std::min(std::max({gap, at_time, c.earliest}), caps[d][i]);
        if (gap < c.earliest) throw Error("timed lowering: no order of the posts fits (an internal error)");
        gaps[gap].push_back(c.comm);
      }
      for (std::size_t g = 0; g <= ops.size(); ++g) {
        // Each gap's posts go as one group, as batched runtimes post them; the global order
        // still holds, so grouping cannot deadlock (docs/model.md).
        for (std::size_t i = 0; i < gaps[g].size(); ++i) {
          out.actions[d].push_back(LoweredAction::communicate(gaps[g][i], i > 0));
        }
        if (g < ops.size()) out.actions[d].push_back(LoweredAction::compute(ops[g]));
      }
    }
    return out;
  };
  LoweredSchedule arrival = place(ReceiveGap::Arrival);
  if (mode != CommMode::Blocking) return arrival;
  LoweredSchedule nearest = place(ReceiveGap::Nearest);
  return blocking_step(nearest, used) < blocking_step(arrival, used) ? std::move(nearest) : std::move(arrival);
}

}  // namespace

std::string_view policy_name(LowerPolicy policy) {
  return enum_name(kLowerPolicies, policy);
}

std::optional<LowerPolicy> parse_policy(std::string_view name) {
  return enum_named(kLowerPolicies, name);
}

std::span<const LowerPolicy> all_policies() {
  return kPolicies;
}

LoweredSchedule lower(const Schedule& schedule, LowerPolicy policy, const CostModel* costs, CommMode mode) {
  if (policy == LowerPolicy::Timed) return lower_timed(schedule, costs, mode);
  LoweredSchedule out{schedule, std::string(policy_name(policy)), {}};
  out.actions.resize(schedule.order.size());
  // Early receives move one compute op ahead of their consumer.
  const std::size_t lead = policy == LowerPolicy::Early ? 1 : 0;
  for (std::size_t d = 0; d < schedule.order.size(); ++d) {
    const int device = static_cast<int>(d);
    const std::vector<Op>& ops = schedule.order[d];
    std::vector<LoweredAction>& list = out.actions[d];
    for (std::size_t i = 0; i <= ops.size(); ++i) {
      // The gap before op i: the sends of op i-1, then the receives of op i + lead (and, in the
      // first gap, of every op the lead skips).
      std::vector<CommOp> gap;
      if (i > 0) {
        for (const CommOp& c : sends_of(schedule, ops[i - 1], device)) gap.push_back(c);
      }
      const std::size_t first = i == 0 ? 0 : i + lead;
      for (std::size_t j = first; j <= i + lead && j < ops.size(); ++j) {
        for (const CommOp& r : receives_of(schedule, ops[j], device)) gap.push_back(r);
      }
      append_gap(list, std::move(gap), policy, device);
      if (i < ops.size()) list.push_back(LoweredAction::compute(ops[i]));
    }
  }
  return out;
}

}  // namespace pipeplan
