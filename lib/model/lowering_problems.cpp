#include "model/lowering_problems.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>

#include "model/large_allocator.hpp"
#include "model/post_tables.hpp"

namespace pipeplan {

namespace {

int device_of(const Schedule& s, int stage) {
  return s.placement[static_cast<std::size_t>(stage)];
}

}  // namespace

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
      if (c.stage < 0 || c.stage >= s.stages || c.peer_stage() < 0 || c.peer_stage() >= s.stages || c.microbatch < 0 ||
          c.microbatch >= s.microbatches) {
        problems.push_back(
            {ProblemKind::OutOfRange, device, describe(c) + " names a stage or micro-batch that does not exist"});
        continue;
      }
      if (device_of(s, c.stage) != device) {
        problems.push_back({ProblemKind::WrongDevice, device,
                            describe(c) + " is on device " + std::to_string(device) + ", stage " +
                                std::to_string(c.stage) + " lives on device " + std::to_string(device_of(s, c.stage))});
        continue;
      }
      const int peer = device_of(s, c.peer_stage());
      if (peer == device) {
        problems.push_back(
            {ProblemKind::Header, device,
             describe(c) + " crosses no devices: stage " + std::to_string(c.peer_stage()) + " is on the same device"});
        continue;
      }
      std::uint8_t& flag = flags[index(c)];
      if ((flag & kPosted) != 0 && (flag & kPostedAgain) == 0) {
        flag |= kPostedAgain;
        problems.push_back({ProblemKind::Repeated, device,
                            describe(c) + " is posted more than once on device " + std::to_string(device)});
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
