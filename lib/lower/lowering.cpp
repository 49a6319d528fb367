#include "lower/lowering.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>

#include "model/dependencies.hpp"
#include "model/error.hpp"
#include "model/large_allocator.hpp"
#include "model/name_fold.hpp"
#include "sim/simulator.hpp"

namespace pipeplan {

namespace {

constexpr std::array kPolicies = {LowerPolicy::JustBefore, LowerPolicy::Early, LowerPolicy::Megatron,
                                  LowerPolicy::Batched, LowerPolicy::Timed};
constexpr std::array<std::string_view, 5> kPolicyNames = {"just-before", "early", "megatron", "batched", "timed"};

int device_of(const Schedule& s, int stage) { return s.placement[static_cast<std::size_t>(stage)]; }

// The sends or receives of one op: at most two (an FB's forward output and input gradient, or
// its two inputs from other devices), with room for one per dependency so that no schedule can
// overflow it; no allocation, since the checks ask for every op.
struct CommOps {
  std::array<CommOp, 4> items;
  std::size_t count = 0;
  void push_back(const CommOp& c) { items[count++] = c; }
  [[nodiscard]] const CommOp* begin() const { return items.data(); }
  [[nodiscard]] const CommOp* end() const { return items.data() + count; }
};

// The receives `op` needs on `device`: one per input produced on another device.
CommOps receives_of(const Schedule& s, const Op& op, int device) {
  CommOps out;
  for (const Dependency& dep : dependencies_of(op, s.stages)) {
    if (device_of(s, dep.stage) == device) continue;
    if (dep.need == Need::Forward) {
      out.push_back({CommKind::RecvF, dep.stage + 1, dep.microbatch});
    } else {
      out.push_back({CommKind::RecvB, dep.stage - 1, dep.microbatch});
    }
  }
  return out;
}

// The sends after `op` on `device`: its forward output and its input gradient, when the stage
// that takes them lives elsewhere.
CommOps sends_of(const Schedule& s, const Op& op, int device) {
  CommOps out;
  const bool forward = op.kind == OpKind::F || op.kind == OpKind::FB;
  if (forward && op.stage + 1 < s.stages && device_of(s, op.stage + 1) != device) {
    out.push_back({CommKind::SendF, op.stage, op.microbatch});
  }
  const Op backward = op.kind == OpKind::FB ? op.backward_part() : op;
  if (gives_input_gradient(backward.kind) && backward.stage > 0 && device_of(s, backward.stage - 1) != device) {
    out.push_back({CommKind::SendB, backward.stage, backward.microbatch});
  }
  return out;
}

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
// produced in the overlapped run, then its direction, stage and micro-batch. Each device posts
// its sends and receives in key order, each in the gap where the overlapped run was at that
// time (after every op that had ended by then): a send right after its producer, a receive
// where its data arrived, before its consumer. Every device then meets the transfers
// in one global order, so the pairs match and none waits for a post queued behind its own.
using TransferKey = std::tuple<SimTime, int, int, int>;  // producer's end, kind, stage, micro-batch

LoweredSchedule lower_timed(const Schedule& schedule, const CostModel* costs) {
  const CostModel unit = uniform_costs(schedule.stages, schedule.devices, StageCost{1, 1, 1, 0, 0}, 0);
  const CostModel& used = costs != nullptr ? *costs : unit;
  SimResult run = simulate(schedule, used);
  if (run.deadlocked()) throw Error("timed lowering: the schedule deadlocks even with overlapped transfers");
  // When each output is produced: forward (kind 0) and input gradient (kind 1) per stage and
  // micro-batch, in one flat table.
  const auto slot = [&](int kind, int stage, int mb) {
    return (static_cast<std::size_t>(kind) * static_cast<std::size_t>(schedule.stages) + static_cast<std::size_t>(stage)) *
               static_cast<std::size_t>(schedule.microbatches) +
           static_cast<std::size_t>(mb);
  };
  std::vector<SimTime> produced(slot(2, 0, 0), -1);
  std::vector<std::vector<SimTime>> ends(run.devices.size());  // each device's op ends, in list order
  for (std::size_t d = 0; d < run.devices.size(); ++d) {
    for (const OpTiming& t : run.devices[d].ops) {
      ends[d].push_back(t.end);
      if (t.op.kind == OpKind::F || t.op.kind == OpKind::FB) produced[slot(0, t.op.stage, t.op.microbatch)] = t.end;
      const Op backward = t.op.kind == OpKind::FB ? t.op.backward_part() : t.op;
      if (gives_input_gradient(backward.kind)) produced[slot(1, backward.stage, backward.microbatch)] = t.end;
    }
  }
  const auto key_of = [&](const CommOp& c) -> TransferKey {
    const CommOp send = c.is_send() ? c : c.matching();
    const int kind = send.kind == CommKind::SendF ? 0 : 1;
    return {produced[slot(kind, send.stage, send.microbatch)], kind, send.stage, send.microbatch};
  };
  const SimTime transfer = ms_to_ns(used.transfer.ms());
  LoweredSchedule out{schedule, std::string(policy_name(LowerPolicy::Timed)), {}};
  out.actions.resize(schedule.order.size());
  for (std::size_t d = 0; d < schedule.order.size(); ++d) {
    const int device = static_cast<int>(d);
    const std::vector<Op>& ops = schedule.order[d];
    // Each send or receive with its key and the gaps it may take: gap g is before ops[g].
    struct Placed {
      TransferKey key;
      CommOp comm;
      std::size_t earliest, latest;
    };
    std::vector<Placed> comms;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      for (const CommOp& r : receives_of(schedule, ops[i], device)) comms.push_back({key_of(r), r, 0, i});
      for (const CommOp& c : sends_of(schedule, ops[i], device)) comms.push_back({key_of(c), c, i + 1, ops.size()});
    }
    std::stable_sort(comms.begin(), comms.end(), [](const Placed& a, const Placed& b) { return a.key < b.key; });
    std::vector<std::vector<CommOp>> gaps(ops.size() + 1);
    std::size_t gap = 0;
    for (const Placed& c : comms) {
      // The gap after every op that had ended when the send's data was made or the receive's
      // arrived; kept growing along the keys.
      const SimTime when = std::get<0>(c.key) + (c.comm.is_send() ? 0 : transfer);
      const auto at_time =
          static_cast<std::size_t>(std::upper_bound(ends[d].begin(), ends[d].end(), when) - ends[d].begin());
      gap = std::min(std::max({gap, at_time, c.earliest}), c.latest);
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
}


}  // namespace

std::string_view policy_name(LowerPolicy policy) { return kPolicyNames.at(static_cast<std::size_t>(policy)); }

std::optional<LowerPolicy> parse_policy(std::string_view name) {
  for (std::size_t i = 0; i < kPolicyNames.size(); ++i) {
    if (same_name(kPolicyNames[i], name)) return kPolicies[i];
  }
  return std::nullopt;
}

std::span<const LowerPolicy> all_policies() { return kPolicies; }

LoweredSchedule lower(const Schedule& schedule, LowerPolicy policy, const CostModel* costs) {
  if (policy == LowerPolicy::Timed) return lower_timed(schedule, costs);
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

namespace {

// What lowering_problems knows of each send and receive, one byte each in a flat table.
enum CommFlag : std::uint8_t {
  kPosted = 1,       // posted once
  kPostedAgain = 2,  // posted twice or more
  kProduced = 4,     // a send whose data an op before it on its device made
  kReceived = 8,     // a receive posted (before the op being checked)
  kAtPeer = 16,      // posted at the other end of the device pair being paired
};

// The posts between one ordered pair of devices, sender first, in posting order.
struct PairPosts {
  int from = 0, to = 0;
  std::vector<CommOp> sends, receives;
};

// Each ordered device pair's posts, found through a short list per sender: a device talks to
// few others, so the search is a handful of comparisons and no hashing.
class PairTable {
 public:
  explicit PairTable(int devices) : by_sender_(static_cast<std::size_t>(devices)) {}

  PairPosts& operator()(int from, int to) {
    auto& mine = by_sender_[static_cast<std::size_t>(from)];
    for (const auto& [peer, index] : mine) {
      if (peer == to) return pairs_[index];
    }
    mine.emplace_back(to, pairs_.size());
    pairs_.push_back({from, to, {}, {}});
    return pairs_.back();
  }

  // Every pair, ordered by sender, then receiver.
  std::vector<PairPosts>& sorted() {
    std::sort(pairs_.begin(), pairs_.end(),
              [](const PairPosts& a, const PairPosts& b) { return std::tie(a.from, a.to) < std::tie(b.from, b.to); });
    by_sender_.clear();  // the indexes no longer hold
    return pairs_;
  }

 private:
  std::vector<std::vector<std::pair<int, std::size_t>>> by_sender_;
  std::vector<PairPosts> pairs_;
};

}  // namespace

std::vector<Problem> lowering_problems(const LoweredSchedule& lowered) {
  const Schedule& s = lowered.schedule;
  std::vector<Problem> problems;
  const CommIndex index(s.stages, s.microbatches);
  // A send or receive's stage names its device, so one table serves every device: a device's
  // ops only ever look up the posts of its own stages.
  LargeVector<std::uint8_t> flags(index.size(), 0);
  PairTable pairs(std::max(s.devices, static_cast<int>(lowered.actions.size())));
  for (std::size_t d = 0; d < lowered.actions.size(); ++d) {
    const int device = static_cast<int>(d);
    for (const LoweredAction& a : lowered.actions[d]) {
      if (!a.is_comm) {
        for (const CommOp& r : receives_of(s, a.op, device)) {
          if ((flags[index(r)] & kReceived) == 0) {
            problems.push_back({ProblemKind::Missing, device,
                                describe(a.op) + " on device " + std::to_string(device) + " needs " + describe(r) +
                                    " posted before it"});
          }
        }
        for (const CommOp& out : sends_of(s, a.op, device)) flags[index(out)] |= kProduced;
        continue;
      }
      const CommOp& c = a.comm;
      if (c.stage < 0 || c.stage >= s.stages || c.peer_stage() < 0 || c.peer_stage() >= s.stages ||
          c.microbatch < 0 || c.microbatch >= s.microbatches) {
        problems.push_back({ProblemKind::OutOfRange, device, describe(c) + " names a stage or micro-batch that does not exist"});
        continue;
      }
      if (device_of(s, c.stage) != device) {
        problems.push_back({ProblemKind::WrongDevice, device,
                            describe(c) + " is on device " + std::to_string(device) + ", stage " + std::to_string(c.stage) +
                                " lives on device " + std::to_string(device_of(s, c.stage))});
        continue;
      }
      const int peer = device_of(s, c.peer_stage());
      if (peer == device) {
        problems.push_back({ProblemKind::Header, device, describe(c) + " crosses no devices: stage " +
                                                             std::to_string(c.peer_stage()) + " is on the same device"});
        continue;
      }
      std::uint8_t& flag = flags[index(c)];
      if ((flag & kPosted) != 0 && (flag & kPostedAgain) == 0) {
        flag |= kPostedAgain;
        problems.push_back({ProblemKind::Repeated, device, describe(c) + " is posted more than once on device " + std::to_string(device)});
      }
      flag |= kPosted;
      if (c.is_send()) {
        if ((flag & kProduced) == 0) {
          problems.push_back({ProblemKind::Misordered, device,
                              describe(c) + " is posted on device " + std::to_string(device) +
                                  " before the op that produces what it sends"});
        }
        pairs(device, peer).sends.push_back(c);
      } else {
        flag |= kReceived;
        pairs(peer, device).receives.push_back(c);
      }
    }
  }
  // NCCL pairs the k-th send from A to B with the k-th receive on B from A.
  for (PairPosts& pair : pairs.sorted()) {
    std::vector<CommOp>& out = pair.sends;
    std::vector<CommOp>& in = pair.receives;
    // A post whose partner is nowhere at the other end.
    const auto unpaired = [&](std::vector<CommOp>& mine, const std::vector<CommOp>& theirs, int device, int peer) {
      for (const CommOp& c : theirs) flags[index(c)] |= kAtPeer;
      std::vector<CommOp> kept;
      for (const CommOp& c : mine) {
        if ((flags[index(c.matching())] & kAtPeer) != 0) {
          kept.push_back(c);
          continue;
        }
        problems.push_back({ProblemKind::Unmatched, device,
                            describe(c) + " on device " + std::to_string(device) + " has no matching " +
                                describe(c.matching()) + " on device " + std::to_string(peer)});
      }
      for (const CommOp& c : theirs) flags[index(c)] &= static_cast<std::uint8_t>(~kAtPeer);
      mine = std::move(kept);
    };
    const std::vector<CommOp> all_in = in;
    unpaired(in, out, pair.to, pair.from);
    unpaired(out, all_in, pair.from, pair.to);
    for (std::size_t k = 0; k < out.size() && k < in.size(); ++k) {
      if (out[k].matching() == in[k]) continue;
      problems.push_back({ProblemKind::Unmatched, pair.from,
                          "device " + std::to_string(pair.from) + "'s send #" + std::to_string(k + 1) + " to device " +
                              std::to_string(pair.to) + " is " + describe(out[k]) + " but device " +
                              std::to_string(pair.to) + "'s receive #" + std::to_string(k + 1) + " from it is " +
                              describe(in[k]) + ": posted in different orders, they would pair the wrong tensors"});
      break;  // after the first mispairing every later one follows
    }
  }
  return problems;
}

}  // namespace pipeplan
