#include "sim/comm_plan.hpp"

namespace pipeplan::sim {

CommPlan plan_posts(const LoweredSchedule& lowered, const CommIndex& index) {
  const Schedule& s = lowered.schedule;
  CommPlan out;
  out.devices.resize(static_cast<std::size_t>(s.devices));
  out.receive_slot.assign(index.size(), 0);
  // Each link's id, found through a short list per sender: a device talks to few others.
  std::vector<std::vector<std::pair<int, std::size_t>>> links_from(static_cast<std::size_t>(s.devices));
  const auto link_id = [&](int from, int to) {
    auto& mine = links_from[static_cast<std::size_t>(from)];
    for (const auto& [peer, id] : mine) {
      if (peer == to) return std::pair{id, false};
    }
    mine.emplace_back(to, out.link_ends.size());
    out.link_ends.emplace_back(from, to);
    return std::pair{out.link_ends.size() - 1, true};
  };
  std::vector<std::size_t> received;  // per link, within one iteration; out.per_link counts sends
  for (std::size_t d = 0; d < lowered.actions.size(); ++d) {
    DevicePosts& p = out.devices[d];
    const int device = static_cast<int>(d);
    p.items.reserve(lowered.actions[d].size());
    p.slots.reserve(lowered.actions[d].size());
    for (const LoweredAction& a : lowered.actions[d]) {
      if (!a.is_comm) {
        p.items.push_back({false, a.op, 0, 0});
        continue;
      }
      const int peer = s.placement[static_cast<std::size_t>(a.comm.peer_stage())];
      const auto [link, added] = a.comm.is_send() ? link_id(device, peer) : link_id(peer, device);
      if (added) {
        out.per_link.push_back(0);
        received.push_back(0);
      }
      const std::size_t at = a.comm.is_send() ? out.per_link[link]++ : received[link]++;
      // A device posts at most two sends or receives per op, and ops are at most kMaxOps.
      if (!a.comm.is_send()) out.receive_slot[index(a.comm)] = static_cast<std::uint32_t>(p.slots.size());
      p.slots.push_back({a.comm, peer, link, at});
      if (!a.batched || p.items.empty() || !p.items.back().group) p.items.push_back({true, {}, p.slots.size() - 1, 0});
      p.items.back().last = p.slots.size();
    }
  }
  return out;
}

}  // namespace pipeplan::sim
