#include "sim/comm_simulation.hpp"

#include <algorithm>

namespace pipeplan::sim {

CommSimulation::CommSimulation(const LoweredSchedule& lowered, const CostModel& costs, CommMode mode,
                               const SimOptions& options)
    : s_(lowered.schedule),
      mode_(mode),
      options_(options),
      transfer_(costs),
      per_iteration_(static_cast<std::size_t>(s_.stages) * static_cast<std::size_t>(s_.microbatches)),
      times_(stage_times(costs)),
      recorder_(s_, costs, options),
      state_(static_cast<std::size_t>(s_.devices)),
      comm_index_(s_.stages, s_.microbatches),
      plan_(plan_posts(lowered, comm_index_)),
      optimizer_(optimizer_times(costs)),
      barrier_(s_.devices, options.optimizer_mode) {
  transfers_.resize(plan_.link_ends.size());
  for (std::size_t l = 0; l < transfers_.size(); ++l) {
    transfers_[l].resize(plan_.per_link[l] * static_cast<std::size_t>(options_.iterations));
  }
  OutputEnds{forward_end_, gradient_end_, split_b_end_}.reset(per_iteration_ *
                                                              static_cast<std::size_t>(options.iterations));
}

CommSimResult CommSimulation::run() {
  for (int d = s_.devices - 1; d >= 0; --d) enqueue(d);
  while (!work_.empty()) {
    const int d = work_.back();
    work_.pop_back();
    state(d).queued = false;
    advance(d);
  }
  CommSimResult out;
  out.transfers = transfers_by_start();
  collect_stuck(out);
  if (out.stuck.empty()) check_invariants();
  out.result = std::move(recorder_.result());
  return out;
}

void CommSimulation::enqueue(int d) {
  if (state(d).queued) return;
  state(d).queued = true;
  work_.push_back(d);
}

// When an input of `op` is there: its producer's end on this device, or its receive's end.
SimTime CommSimulation::input_ready(int device, int iteration, const Dependency& dep) {
  if (device_of(dep.stage) == device) {
    const auto& ends = dep.need == Need::Forward         ? forward_end_
                       : dep.need == Need::InputGradient ? gradient_end_
                                                         : split_b_end_;
    return ends[slot(iteration, dep.stage, dep.microbatch)];
  }
  const CommOp receive = dep.need == Need::Forward ? CommOp{CommKind::RecvF, dep.stage + 1, dep.microbatch}
                                                   : CommOp{CommKind::RecvB, dep.stage - 1, dep.microbatch};
  const CommSlot& c = posts(device).slots[plan_.receive_slot[comm_index_(receive)]];
  return transfer(c, iteration).end;
}

// When the data a send carries exists: the end of the op that made it, or kNever.
SimTime CommSimulation::produced(int iteration, const CommOp& send) const {
  const auto& ends = send.kind == CommKind::SendF ? forward_end_ : gradient_end_;
  return ends[slot(iteration, send.stage, send.microbatch)];
}

void CommSimulation::advance(int device) {
  DeviceState& st = state(device);
  while (st.iteration < options_.iterations && !barrier_.waiting(device)) {
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
const PostItem* CommSimulation::head(int device, int k) {
  Stream& stream = state(device).streams[k];
  const LargeVector<PostItem>& items = posts(device).items;
  while (stream.next < items.size() && stream_of(items[stream.next]) != k) ++stream.next;
  return stream.next < items.size() ? &items[stream.next] : nullptr;
}

bool CommSimulation::finished_iteration(int device) {
  for (int k = 0; k < streams(); ++k) {
    if (head(device, k) != nullptr) return false;
  }
  return true;
}

bool CommSimulation::step(int device, int k) {
  const PostItem* item = head(device, k);
  if (item == nullptr) return false;
  return item->group ? step_group(device, k, *item) : step_compute(device, k, item->op);
}

bool CommSimulation::step_compute(int device, int k, const Op& op) {
  DeviceState& st = state(device);
  Stream& stream = st.streams[k];
  SimTime start = stream.free;
  for (const Dependency& dep : dependencies_of(op, s_.stages)) {
    const SimTime ready = input_ready(device, st.iteration, dep);
    if (ready == kNever) return false;
    start = std::max(start, ready);
  }
  const SimTime end = start + duration(times_, op);
  recorder_.op(device, st.iteration, st.first_op, op, start, end, memory_effect(times_, op));
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

bool CommSimulation::step_group(int device, int k, const PostItem& group) {
  DeviceState& st = state(device);
  Stream& stream = st.streams[k];
  const DevicePosts& p = posts(device);
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
    resolve(c.link, static_cast<std::size_t>(st.iteration) * plan_.per_link[c.link] + c.index);
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
void CommSimulation::resolve(std::size_t link, std::size_t index) {
  TransferState& t = transfers_[link][index];
  if (t.end != kNever || t.send_ready == kNever || t.receive_ready == kNever) return;
  const SimTime free = index == 0 ? 0 : transfers_[link][index - 1].end;
  if (free == kNever) return;
  t.end = std::max({t.send_ready, t.receive_ready, free}) + transfer_time(t);
  enqueue(plan_.link_ends[link].first);
  enqueue(plan_.link_ends[link].second);
  if (index + 1 < transfers_[link].size()) resolve(link, index + 1);
}

void CommSimulation::end_iteration(int device) {
  DeviceState& st = state(device);
  SimTime done = 0;
  for (int k = 0; k < streams(); ++k) done = std::max(done, st.streams[k].free);
  if (st.first_op) recorder_.no_ops(device, st.iteration, done);
  if (barrier_.arrive(device, done, [this](int d, SimTime start) { step_optimizer(d, start); })) {
    for (int d = 0; d < s_.devices; ++d) enqueue(d);
  }
}

void CommSimulation::step_optimizer(int device, SimTime start) {
  DeviceState& st = state(device);
  const SimTime end = start + optimizer_[static_cast<std::size_t>(device)];
  recorder_.optimizer(device, st.iteration, start, end);
  for (Stream& stream : st.streams) stream = {0, end, false, 0};
  st.first_op = true;
  ++st.iteration;
}

}  // namespace pipeplan::sim
