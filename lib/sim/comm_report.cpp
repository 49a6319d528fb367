// What a run with communication gives back: the transfers in start order, and when it
// deadlocks, a record per stuck device and the cycle of devices waiting on each other.
#include <functional>
#include <queue>
#include <string>
#include <tuple>

#include "model/error.hpp"
#include "model/wait_cycle.hpp"
#include "sim/comm_simulation.hpp"

namespace pipeplan::sim {

// Every transfer that ran, by start, ties by link. A link runs its transfers one at a time in
// posting order, so each link's list is in start order already, the ones that ran first (a
// transfer waits for the one before it): merging the lists is linear in the transfers times
// the log of the links, where sorting them all was n log n.
std::vector<TransferTiming> CommSimulation::transfers_by_start() const {
  using Head = std::tuple<SimTime, std::size_t, std::size_t>;  // start, link, index on the link
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  const auto push = [&](std::size_t link, std::size_t index) {
    const LargeVector<TransferState>& list = transfers_[link];
    if (index < list.size() && list[index].end != kNever)
      heads.emplace(list[index].end - transfer_time(list[index]), link, index);
  };
  std::size_t most = 0;
  for (std::size_t link = 0; link < transfers_.size(); ++link) {
    most += transfers_[link].size();
    push(link, 0);
  }
  std::vector<TransferTiming> out;
  out.reserve(most);
  while (!heads.empty()) {
    const auto [start, link, index] = heads.top();
    heads.pop();
    const TransferState& t = transfers_[link][index];
    out.push_back({t.from, t.to, t.iteration, t.send, start, t.end});
    push(link, index + 1);
  }
  return out;
}

// Each stuck device's record and its next compute op, and the cycle of devices whose posts wait
// on each other (the one wait-cycle finder both simulators use).
void CommSimulation::collect_stuck(CommSimResult& out) {
  std::vector<std::vector<int>> waits_on(static_cast<std::size_t>(s_.devices));
  for (int d = 0; d < s_.devices; ++d) {
    if (state(d).iteration == options_.iterations || barrier_.waiting(d)) continue;
    out.stuck.push_back(stuck_device(d));
    if (out.stuck.back().peer >= 0) waits_on[static_cast<std::size_t>(d)].push_back(out.stuck.back().peer);
    recorder_.result().deadlock.push_back(blocked(d));
  }
  recorder_.result().deadlock_cycle = wait_cycle(waits_on);
}

// The first post of the device's communication that cannot complete, and on whom it waits.
StuckDevice CommSimulation::stuck_device(int device) {
  DeviceState& st = state(device);
  const int k = streams() - 1;
  const PostItem* item = head(device, k);
  if (item == nullptr || !item->group) {
    const PostItem* compute = head(device, 0);
    StuckDevice out{device, StuckReason::AtCompute, std::nullopt, -1, std::nullopt};
    if (compute != nullptr) out.post = LoweredAction::compute(compute->op);
    return out;
  }
  const DevicePosts& p = posts(device);
  for (std::size_t i = item->first; i < item->last; ++i) {
    const CommSlot& c = p.slots[i];
    const TransferState& t = transfer(c, st.iteration);
    if (t.end != kNever) continue;
    StuckDevice out{device, StuckReason::PeerNotPosted, LoweredAction::communicate(c.comm, false), c.peer,
                    std::nullopt};
    const bool peer_posted = c.comm.is_send() ? t.receive_ready != kNever : t.send_ready != kNever;
    if (!st.streams[k].posted) {
      out.reason = StuckReason::DataNotReady;
    } else if (peer_posted) {
      out.reason = StuckReason::LinkBusy;
    } else {
      out.peer_next = next_post(c.peer);
    }
    return out;
  }
  return {device, StuckReason::Unexplained, std::nullopt, -1, std::nullopt};
}

std::optional<LoweredAction> CommSimulation::next_post(int device) {
  const PostItem* item = head(device, streams() - 1);
  if (item == nullptr) return std::nullopt;
  return item->group ? LoweredAction::communicate(posts(device).slots[item->first].comm, false)
                     : LoweredAction::compute(item->op);
}

BlockedDevice CommSimulation::blocked(int device) {
  DeviceState& st = state(device);
  const PostItem* compute = head(device, 0);
  BlockedDevice b{device, st.iteration, st.streams[0].next, compute && !compute->group ? compute->op : Op{}, {}};
  if (compute != nullptr && !compute->group) {
    for (const Dependency& dep : dependencies_of(compute->op, s_.stages)) {
      if (input_ready(device, st.iteration, dep) == kNever) b.waiting_for.push_back(dep);
    }
  }
  return b;
}

void CommSimulation::check_invariants() const {
  for (std::size_t d = 0; d < state_.size(); ++d) {
    if (recorder_.memory(static_cast<int>(d)) != recorder_.result().devices[d].static_memory) {
      throw Error("internal error: device " + std::to_string(d) + " did not end with only its static memory");
    }
  }
}

}  // namespace pipeplan::sim
