#pragma once
// The run behind simulate_with_comm: each device's compute stream and, under rendezvous, its
// communication stream advance through the device's posts while they can; a transfer ends when
// both ends have posted, its data exists and its link is free. Internal to lib/sim; its
// stepping is in comm_simulation.cpp, what it reports in comm_report.cpp.
#include <cstddef>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/dependencies.hpp"
#include "model/large_allocator.hpp"
#include "model/lowered.hpp"
#include "sim/comm_plan.hpp"
#include "sim/comm_simulator.hpp"
#include "sim/iteration_barrier.hpp"
#include "sim/op_costs.hpp"
#include "sim/timeline_recorder.hpp"
#include "sim/transfer_rule.hpp"

namespace pipeplan::sim {

class CommSimulation {
 public:
  CommSimulation(const LoweredSchedule& lowered, const CostModel& costs, CommMode mode, const SimOptions& options);

  /// Runs every device as far as it goes. Precondition: simulate_with_comm's checks passed.
  [[nodiscard]] CommSimResult run();

  /// What it keeps per transfer and iteration, for run_bytes (run_memory.hpp).
  static constexpr std::size_t transfer_state_bytes() { return sizeof(TransferState); }

 private:
  static constexpr SimTime kNever = -1;

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
    bool queued = false;
  };

  DeviceState& state(int d) { return state_[static_cast<std::size_t>(d)]; }
  const DevicePosts& posts(int d) const { return plan_.devices[static_cast<std::size_t>(d)]; }
  int device_of(int stage) const { return s_.placement[static_cast<std::size_t>(stage)]; }
  std::size_t slot(int iteration, int stage, int mb) const {
    return static_cast<std::size_t>(iteration) * per_iteration_ +
           static_cast<std::size_t>(stage) * static_cast<std::size_t>(s_.microbatches) + static_cast<std::size_t>(mb);
  }
  int stream_of(const PostItem& item) const { return mode_ == CommMode::Rendezvous && item.group ? 1 : 0; }
  int streams() const { return mode_ == CommMode::Rendezvous ? 2 : 1; }
  // How long a transfer takes once it runs: its boundary's crossing (a send and its receive are
  // always on two devices).
  SimTime transfer_time(const TransferState& t) const { return transfer_.crossing(t.send.boundary()); }
  TransferState& transfer(const CommSlot& c, int iteration) {
    return transfers_[c.link][static_cast<std::size_t>(iteration) * plan_.per_link[c.link] + c.index];
  }

  // comm_simulation.cpp: stepping.
  void enqueue(int d);
  SimTime input_ready(int device, int iteration, const Dependency& dep);
  SimTime produced(int iteration, const CommOp& send) const;
  void advance(int device);
  const PostItem* head(int device, int k);
  bool finished_iteration(int device);
  bool step(int device, int k);
  bool step_compute(int device, int k, const Op& op);
  bool step_group(int device, int k, const PostItem& group);
  void resolve(std::size_t link, std::size_t index);
  void end_iteration(int device);
  void step_optimizer(int device, SimTime start);

  // comm_report.cpp: what the run gives back.
  std::vector<TransferTiming> transfers_by_start() const;
  void collect_stuck(CommSimResult& out);
  StuckDevice stuck_device(int device);
  std::optional<LoweredAction> next_post(int device);
  BlockedDevice blocked(int device);
  void check_invariants() const;

  const Schedule& s_;
  CommMode mode_;
  SimOptions options_;
  TransferRule transfer_;  // transfer_time()
  std::size_t per_iteration_;
  std::vector<StageTimes> times_;
  TimelineRecorder recorder_;
  std::vector<DeviceState> state_;
  CommIndex comm_index_;
  CommPlan plan_;
  std::vector<LargeVector<TransferState>> transfers_;  // per link, every iteration's in order
  LargeVector<SimTime> forward_end_, gradient_end_, split_b_end_;
  std::vector<SimTime> optimizer_;
  IterationBarrier barrier_;
  std::vector<int> work_;
};

}  // namespace pipeplan::sim
