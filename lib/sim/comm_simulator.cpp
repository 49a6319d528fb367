#include "sim/comm_simulator.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>

#include "lower/lowering.hpp"
#include "model/dependencies.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"
#include "model/name_fold.hpp"
#include "model/structure.hpp"
#include "model/wait_cycle.hpp"
#include "sim/lower_bound.hpp"
#include "sim/op_costs.hpp"
#include "sim/timeline_recorder.hpp"

namespace pipeplan {

namespace {

constexpr SimTime kNever = -1;

// One send or receive of a device's list.
struct CommSlot {
  CommOp comm;
  int peer = 0;
  std::size_t link = 0;   // the ordered device pair it travels on (sender, receiver)
  std::size_t index = 0;  // its transfer's position on that link within one iteration
};

// A compute op, or a group of sends and receives posted together.
struct Item {
  bool group = false;
  Op op;
  std::size_t first = 0, last = 0;  // group: its slots
};


struct DevicePlan {
  LargeVector<Item> items;
  LargeVector<CommSlot> slots;
};

struct TransferState {
  SimTime send_ready = kNever;
  SimTime receive_ready = kNever;
  SimTime end = kNever;
  CommOp send;
  int from = 0, to = 0, iteration = 0;
};

struct Stream {
  std::size_t next = 0;
  SimTime free = 0;
  bool posted = false;  // the group at `next` has been posted
  SimTime post = 0;
};

struct DeviceState {
  Stream streams[2];  // blocking: everything on 0; rendezvous: compute on 0, communication on 1
  int iteration = 0;
  bool first_op = true;
  bool at_barrier = false;
  bool queued = false;
};

class CommSimulation {
 public:
  CommSimulation(const LoweredSchedule& lowered, const CostModel& costs, CommMode mode, const SimOptions& options)
      : s_(lowered.schedule),
        mode_(mode),
        options_(options),
        transfer_(ms_to_ns(costs.transfer.ms())),
        per_iteration_(static_cast<std::size_t>(s_.stages) * static_cast<std::size_t>(s_.microbatches)),
        times_(sim::stage_times(costs)),
        recorder_(s_, costs, options),
        state_(static_cast<std::size_t>(s_.devices)),
        comm_index_(s_.stages, s_.microbatches),
        receive_slot_(comm_index_.size(), 0) {
    plan(lowered);
    sim::OutputEnds{forward_end_, gradient_end_, split_b_end_}.reset(per_iteration_ *
                                                                     static_cast<std::size_t>(options.iterations));
    optimizer_ = sim::optimizer_times(costs);
  }

  CommSimResult run() {
    for (int d = s_.devices - 1; d >= 0; --d) enqueue(d);
    while (!work_.empty()) {
      const int d = work_.back();
      work_.pop_back();
      state(d).queued = false;
      advance(d);
    }
    CommSimResult out;
    out.transfers = transfers_by_start();
    describe_deadlock(out);
    if (out.stuck.empty()) check_invariants();
    out.result = std::move(recorder_.result());
    return out;
  }

 private:
  DeviceState& state(int d) { return state_[static_cast<std::size_t>(d)]; }
  DevicePlan& plan_of(int d) { return plans_[static_cast<std::size_t>(d)]; }
  int device_of(int stage) const { return s_.placement[static_cast<std::size_t>(stage)]; }
  std::size_t slot(int iteration, int stage, int mb) const {
    return static_cast<std::size_t>(iteration) * per_iteration_ +
           static_cast<std::size_t>(stage) * static_cast<std::size_t>(s_.microbatches) + static_cast<std::size_t>(mb);
  }
  int stream_of(const Item& item) const { return mode_ == CommMode::Rendezvous && item.group ? 1 : 0; }
  int streams() const { return mode_ == CommMode::Rendezvous ? 2 : 1; }

  void enqueue(int d) {
    if (state(d).queued) return;
    state(d).queued = true;
    work_.push_back(d);
  }

  // Items, groups and the link position of every send and receive.
  void plan(const LoweredSchedule& lowered) {
    plans_.resize(static_cast<std::size_t>(s_.devices));
    // Each link's id, found through a short list per sender: a device talks to few others.
    std::vector<std::vector<std::pair<int, std::size_t>>> links_from(static_cast<std::size_t>(s_.devices));
    const auto link_id = [&](int from, int to) {
      auto& mine = links_from[static_cast<std::size_t>(from)];
      for (const auto& [peer, id] : mine) {
        if (peer == to) return std::pair{id, false};
      }
      mine.emplace_back(to, link_ends_.size());
      link_ends_.emplace_back(from, to);
      return std::pair{link_ends_.size() - 1, true};
    };
    std::vector<std::size_t> sent, received;  // per link, within one iteration
    for (std::size_t d = 0; d < lowered.actions.size(); ++d) {
      DevicePlan& p = plans_[d];
      const int device = static_cast<int>(d);
      p.items.reserve(lowered.actions[d].size());
      p.slots.reserve(lowered.actions[d].size());
      for (const LoweredAction& a : lowered.actions[d]) {
        if (!a.is_comm) {
          p.items.push_back({false, a.op, 0, 0});
          continue;
        }
        const int peer = device_of(a.comm.peer_stage());
        const auto [link, added] = a.comm.is_send() ? link_id(device, peer) : link_id(peer, device);
        if (added) {
          sent.push_back(0);
          received.push_back(0);
        }
        const std::size_t index = a.comm.is_send() ? sent[link]++ : received[link]++;
        // A device posts at most two sends or receives per op, and ops are at most kMaxOps.
        if (!a.comm.is_send()) receive_slot_[comm_index_(a.comm)] = static_cast<std::uint32_t>(p.slots.size());
        p.slots.push_back({a.comm, peer, link, index});
        if (!a.batched || p.items.empty() || !p.items.back().group) p.items.push_back({true, {}, p.slots.size() - 1, 0});
        p.items.back().last = p.slots.size();
      }
    }
    transfers_.resize(link_ends_.size());
    for (std::size_t l = 0; l < transfers_.size(); ++l) {
      transfers_[l].resize(sent[l] * static_cast<std::size_t>(options_.iterations));
      per_link_.push_back(sent[l]);
    }
  }

  // Every transfer that ran, by start, ties by link. A link runs its transfers one at a time in
  // posting order, so each link's list is in start order already, the ones that ran first (a
  // transfer waits for the one before it): merging the lists is linear in the transfers times
  // the log of the links, where sorting them all was n log n.
  std::vector<TransferTiming> transfers_by_start() const {
    using Head = std::tuple<SimTime, std::size_t, std::size_t>;  // start, link, index on the link
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    const auto push = [&](std::size_t link, std::size_t index) {
      const LargeVector<TransferState>& list = transfers_[link];
      if (index < list.size() && list[index].end != kNever) heads.emplace(list[index].end - transfer_, link, index);
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

  TransferState& transfer(const CommSlot& c, int iteration) {
    return transfers_[c.link][static_cast<std::size_t>(iteration) * per_link_[c.link] + c.index];
  }

  // When an input of `op` is there: its producer's end on this device, or its receive's end.
  SimTime input_ready(int device, int iteration, const Dependency& dep) {
    if (device_of(dep.stage) == device) {
      const auto& ends = dep.need == Need::Forward ? forward_end_ : dep.need == Need::InputGradient ? gradient_end_ : split_b_end_;
      return ends[slot(iteration, dep.stage, dep.microbatch)];
    }
    const CommOp receive = dep.need == Need::Forward ? CommOp{CommKind::RecvF, dep.stage + 1, dep.microbatch}
                                                      : CommOp{CommKind::RecvB, dep.stage - 1, dep.microbatch};
    const CommSlot& c = plan_of(device).slots[receive_slot_[comm_index_(receive)]];
    return transfer(c, iteration).end;
  }

  // When the data a send carries exists: the end of the op that made it, or kNever.
  SimTime produced(int iteration, const CommOp& send) const {
    const auto& ends = send.kind == CommKind::SendF ? forward_end_ : gradient_end_;
    return ends[slot(iteration, send.stage, send.microbatch)];
  }

  void advance(int device) {
    DeviceState& st = state(device);
    while (st.iteration < options_.iterations && !st.at_barrier) {
      bool moved = false;
      for (int k = 0; k < streams(); ++k) {
        while (step(device, k)) moved = true;
      }
      if (finished_iteration(device)) {
        end_iteration(device);
        continue;
      }
      if (!moved) return;
    }
  }

  // The next item of stream k, skipping those of the other stream.
  const Item* head(int device, int k) {
    Stream& stream = state(device).streams[k];
    const LargeVector<Item>& items = plan_of(device).items;
    while (stream.next < items.size() && stream_of(items[stream.next]) != k) ++stream.next;
    return stream.next < items.size() ? &items[stream.next] : nullptr;
  }

  bool finished_iteration(int device) {
    for (int k = 0; k < streams(); ++k) {
      if (head(device, k) != nullptr) return false;
    }
    return true;
  }

  bool step(int device, int k) {
    const Item* item = head(device, k);
    if (item == nullptr) return false;
    return item->group ? step_group(device, k, *item) : step_compute(device, k, item->op);
  }

  bool step_compute(int device, int k, const Op& op) {
    DeviceState& st = state(device);
    Stream& stream = st.streams[k];
    SimTime start = stream.free;
    for (const Dependency& dep : dependencies_of(op, s_.stages)) {
      const SimTime ready = input_ready(device, st.iteration, dep);
      if (ready == kNever) return false;
      start = std::max(start, ready);
    }
    const SimTime end = start + sim::duration(times_, op);
    recorder_.op(device, st.iteration, st.first_op, op, start, end, sim::memory_effect(times_, op));
    st.first_op = false;
    stream.free = end;
    ++stream.next;
    const std::size_t at = slot(st.iteration, op.stage, op.microbatch);
    if (op.kind == OpKind::F || op.kind == OpKind::FB) forward_end_[at] = end;
    if (op.kind == OpKind::B) split_b_end_[at] = end;
    if (gives_input_gradient(op.kind)) gradient_end_[at] = end;
    if (op.kind == OpKind::FB) gradient_end_[slot(st.iteration, op.overlap_stage, op.overlap_microbatch)] = end;
    return true;
  }

  bool step_group(int device, int k, const Item& group) {
    DeviceState& st = state(device);
    Stream& stream = st.streams[k];
    const DevicePlan& p = plan_of(device);
    bool progressed = false;
    if (!stream.posted) {
      // A send is posted when its data exists; a group when all of its sends can be.
      for (std::size_t i = group.first; i < group.last; ++i) {
        if (p.slots[i].comm.is_send() && produced(st.iteration, p.slots[i].comm) == kNever) return false;
      }
      stream.posted = true;
      stream.post = stream.free;
      for (std::size_t i = group.first; i < group.last; ++i) {
        const CommSlot& c = p.slots[i];
        TransferState& t = transfer(c, st.iteration);
        if (c.comm.is_send()) {
          t.send_ready = std::max(stream.post, produced(st.iteration, c.comm));
          t.send = c.comm;
          t.from = device;
          t.to = c.peer;
          t.iteration = st.iteration;
        } else {
          t.receive_ready = stream.post;
        }
        enqueue(c.peer);
      }
      progressed = true;
    }
    SimTime end = stream.post;
    for (std::size_t i = group.first; i < group.last; ++i) {
      const CommSlot& c = p.slots[i];
      resolve(c.link, static_cast<std::size_t>(st.iteration) * per_link_[c.link] + c.index);
      const SimTime done = transfer(c, st.iteration).end;
      if (done == kNever) return progressed;
      end = std::max(end, done);
    }
    stream.free = end;
    stream.posted = false;
    ++stream.next;
    return true;
  }

  // A transfer starts when both ends are posted (the send's data ready) and the link is free
  // of the transfer posted before it on the same link.
  void resolve(std::size_t link, std::size_t index) {
    TransferState& t = transfers_[link][index];
    if (t.end != kNever || t.send_ready == kNever || t.receive_ready == kNever) return;
    const SimTime free = index == 0 ? 0 : transfers_[link][index - 1].end;
    if (free == kNever) return;
    t.end = std::max({t.send_ready, t.receive_ready, free}) + transfer_;
    enqueue(link_ends_[link].first);
    enqueue(link_ends_[link].second);
    if (index + 1 < transfers_[link].size()) resolve(link, index + 1);
  }

  void end_iteration(int device) {
    DeviceState& st = state(device);
    SimTime done = 0;
    for (int k = 0; k < streams(); ++k) done = std::max(done, st.streams[k].free);
    if (st.first_op) recorder_.no_ops(device, st.iteration, done);
    if (options_.optimizer_mode == OptimizerMode::PostValidation) {
      step_optimizer(device, done);
      return;
    }
    st.at_barrier = true;
    if (++at_barrier_ < s_.devices) return;
    at_barrier_ = 0;
    SimTime barrier = 0;
    for (DeviceState& other : state_) {
      for (int k = 0; k < streams(); ++k) barrier = std::max(barrier, other.streams[k].free);
    }
    for (int d = 0; d < s_.devices; ++d) {
      state(d).at_barrier = false;
      step_optimizer(d, barrier);
      enqueue(d);
    }
  }

  void step_optimizer(int device, SimTime start) {
    DeviceState& st = state(device);
    const SimTime end = start + optimizer_[static_cast<std::size_t>(device)];
    recorder_.optimizer(device, st.iteration, start, end);
    for (int k = 0; k < 2; ++k) st.streams[k] = {0, end, false, 0};
    st.first_op = true;
    ++st.iteration;
  }

  // What each stuck device's next post waits for, and the cycle of devices waiting on each other.
  void describe_deadlock(CommSimResult& out) {
    std::vector<int> waits_on(static_cast<std::size_t>(s_.devices), -1);
    for (int d = 0; d < s_.devices; ++d) {
      DeviceState& st = state(d);
      if (st.iteration == options_.iterations || st.at_barrier) continue;
      out.stuck.push_back(stuck_line(d, waits_on[static_cast<std::size_t>(d)]));
      recorder_.result().deadlock.push_back(blocked(d));
    }
    std::vector<std::vector<int>> graph(waits_on.size());
    for (std::size_t d = 0; d < waits_on.size(); ++d) {
      if (waits_on[d] >= 0) graph[d].push_back(waits_on[d]);
    }
    for (int d : wait_cycle(graph)) out.cycle += (out.cycle.empty() ? "device " : " -> device ") + std::to_string(d);
  }

  // The first post of the device's communication that cannot complete, and on whom it waits.
  std::string stuck_line(int device, int& waits_on) {
    DeviceState& st = state(device);
    const int k = streams() - 1;
    const Item* item = head(device, k);
    if (item == nullptr || !item->group) {
      const Item* compute = head(device, 0);
      return "device " + std::to_string(device) + " is stuck at " +
             (compute != nullptr ? describe(compute->op) : std::string("the end of its list"));
    }
    const DevicePlan& p = plan_of(device);
    for (std::size_t i = item->first; i < item->last; ++i) {
      const CommSlot& c = p.slots[i];
      const TransferState& t = transfer(c, st.iteration);
      if (t.end != kNever) continue;
      waits_on = c.peer;
      const bool peer_posted = c.comm.is_send() ? t.receive_ready != kNever : t.send_ready != kNever;
      std::string line = "device " + std::to_string(device) + " posted " + describe(c.comm) +
                         (c.comm.is_send() ? " to" : " from") + " device " + std::to_string(c.peer);
      if (!st.streams[k].posted) return line + " but cannot post it: its data is not produced yet";
      if (peer_posted) return line + ", which waits for the transfer before it on the link";
      return line + ", which has not posted " + describe(c.comm.matching()) + " (its next post: " + next_post(c.peer) + ")";
    }
    return "device " + std::to_string(device) + " is stuck";
  }

  std::string next_post(int device) {
    const Item* item = head(device, streams() - 1);
    if (item == nullptr) return "none";
    return item->group ? describe(plan_of(device).slots[item->first].comm) : describe(item->op);
  }

  BlockedDevice blocked(int device) {
    DeviceState& st = state(device);
    const Item* compute = head(device, 0);
    BlockedDevice b{device, st.iteration, st.streams[0].next, compute && !compute->group ? compute->op : Op{}, {}};
    if (compute != nullptr && !compute->group) {
      for (const Dependency& dep : dependencies_of(compute->op, s_.stages)) {
        if (input_ready(device, st.iteration, dep) == kNever) b.waiting_for.push_back(dep);
      }
    }
    return b;
  }

  void check_invariants() const {
    for (std::size_t d = 0; d < state_.size(); ++d) {
      if (recorder_.memory(static_cast<int>(d)) != recorder_.result().devices[d].static_memory) {
        throw Error("internal error: device " + std::to_string(d) + " did not end with only its static memory");
      }
    }
  }

  const Schedule& s_;
  CommMode mode_;
  SimOptions options_;
  SimTime transfer_;
  std::size_t per_iteration_;
  std::vector<sim::StageTimes> times_;
  sim::TimelineRecorder recorder_;
  std::vector<DeviceState> state_;
  std::vector<DevicePlan> plans_;
  std::vector<LargeVector<TransferState>> transfers_;  // per link, every iteration's in order
  std::vector<std::size_t> per_link_;                  // transfers of a link in one iteration
  std::vector<std::pair<int, int>> link_ends_;         // sender and receiver of each link
  CommIndex comm_index_;
  // Each receive's slot in its device's plan; lowering_problems has checked that every input
  // from another device has its receive, posted once.
  LargeVector<std::uint32_t> receive_slot_;
  LargeVector<SimTime> forward_end_, gradient_end_, split_b_end_;
  std::vector<SimTime> optimizer_;
  std::vector<int> work_;
  int at_barrier_ = 0;
};

}  // namespace

std::string_view comm_mode_name(CommMode mode) {
  switch (mode) {
    case CommMode::Overlap: return "overlap";
    case CommMode::Blocking: return "blocking";
    case CommMode::Rendezvous: return "rendezvous";
  }
  return "overlap";
}

std::optional<CommMode> parse_comm_mode(std::string_view name) {
  for (CommMode m : {CommMode::Overlap, CommMode::Blocking, CommMode::Rendezvous}) {
    if (same_name(comm_mode_name(m), name)) return m;
  }
  return std::nullopt;
}

CommSimResult simulate_with_comm(const LoweredSchedule& lowered, const CostModel& costs, CommMode mode,
                                 const SimOptions& options) {
  const Schedule& s = lowered.schedule;
  std::vector<Problem> problems = find_structure_problems(s);
  if (!allows_timing(problems)) throw Error("the schedule cannot be timed: " + problems.front().message);
  check_dimensions(costs, s.stages, s.devices);
  check_costs(costs);
  problems = lowering_problems(lowered);
  if (!problems.empty()) {
    throw Error("the lowering cannot run: " + problems.front().message +
                (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more problems)" : ""));
  }
  if (options.iterations < 1 ||
      static_cast<double>(options.iterations) * static_cast<double>(s.op_count()) > static_cast<double>(kMaxOps)) {
    throw Error("iterations: expected 1 or more, with iterations x ops at most " + std::to_string(kMaxOps));
  }
  if (mode == CommMode::Overlap) throw Error("the overlap mode is simulate(): it needs no lowering");
  CommSimResult out = CommSimulation(lowered, costs, mode, options).run();
  out.result.lower_bound = step_lower_bound(s, costs, options.optimizer_mode);
  return out;
}

}  // namespace pipeplan
