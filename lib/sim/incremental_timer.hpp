#pragma once
// One iteration of a schedule timed again after a few of its ops change place, by re-timing only
// what the change reaches: the ops after a moved op on its device and, through their outputs,
// whatever their times change on the other devices. The local search of the automatic schedules
// (schedules/zb_local_search.cpp) tries thousands of such moves and keeps few; timing each from
// scratch cost every op of the schedule, while a move changes a few dozen ops' times (issue 26).
// The times are exactly the simulator's (docs/model.md, "The simulator"): each op starts at the
// later of the end of the op before it on its device and the arrival of every input, durations
// and transfers as sim/op_costs.hpp and sim/transfer_rule.hpp give them; a test compares them
// with simulate_trusted after random moves (tests/incremental_timer_test.cpp). Where a change
// reaches much of the schedule (a search for a cycle or a re-timing that has worked a quarter of
// the ops) it times every op instead, in linear time as the simulator does,
// which is cheaper than the ordered re-timing's heap by then.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/schedule.hpp"
#include "model/units.hpp"

namespace pipeplan {

class IncrementalTimer {
 public:
  /// Whether this timer can time `schedule` with `costs`: every op lasts at least 1 ns. The
  /// check for a deadlock orders ops by their start, which then grows strictly along every
  /// dependency (a zero-time op may start when its input does). Precondition for the rest.
  [[nodiscard]] static bool applies(const Schedule& schedule, const CostModel& costs);

  /// Times `schedule` (one iteration) in full. Precondition: applies(), and the schedule holds
  /// every op once on the right device (find_structure_problems allows timing).
  IncrementalTimer(const Schedule& schedule, const CostModel& costs);

  /// True when the schedule as given deadlocks; then nothing else may be asked.
  [[nodiscard]] bool deadlocked() const { return deadlocked_; }

  /// Moves device `device`'s op at index `from` to index `to`, the ops between shifting by one
  /// (as the search moves them in its copy of the schedule). Not timed until retime().
  void move(std::size_t device, std::size_t from, std::size_t to);

  /// Times the ops the moves since the last keep() or drop() can change; false when the moves
  /// make the schedule deadlock (an op would wait, through other ops, on one after it on its own
  /// device), and then the times are those before the moves.
  [[nodiscard]] bool retime();

  /// Keeps the moves and their times; drop() takes them back.
  void keep();
  void drop();

  [[nodiscard]] std::size_t devices() const { return order_.size(); }
  [[nodiscard]] std::size_t ops(std::size_t device) const { return order_[device].size(); }
  /// The start and end of device `device`'s op at `index` in the order as moved.
  [[nodiscard]] SimTime start(std::size_t device, std::size_t index) const { return node_[id(device, index)].start; }
  [[nodiscard]] SimTime end(std::size_t device, std::size_t index) const { return node_[id(device, index)].end; }
  /// The sum of every op's end.
  [[nodiscard]] SimTime sum_of_ends() const { return sum_of_ends_; }
  /// What it has cost since it was made, in the unit of a simulation's op: every op it queued,
  /// every op it timed (an op once queued and timed counts twice: each costs about as much as a
  /// simulation's op) and every op the search for a cycle visited; a timing in full (the first,
  /// and those below) counts every op.
  [[nodiscard]] long long work() const { return work_; }

 private:
  [[nodiscard]] std::size_t id(std::size_t device, std::size_t index) const {
    return static_cast<std::size_t>(order_[device][index]);
  }
  [[nodiscard]] SimTime start_now(std::size_t op) const;
  enum class Cycle : unsigned char { None, Found, Unknown };
  [[nodiscard]] Cycle find_cycle();
  void push(std::size_t op);
  /// False when it gives up, having worked a quarter of the ops (then times are partly new).
  [[nodiscard]] bool propagate();
  [[nodiscard]] bool time_in_full();
  void restore();
  void next_trial();
  void rotate(std::size_t device, std::size_t from, std::size_t to);

  // One op, numbered once, with what a re-timing reads of it together: its times, where it
  // sits, its inputs and consumers (as ranges of the flat lists below), and the trial that last
  // marked it waiting in the heap (0 once taken out), keyed (`key` holds its key) and saved
  // (before_ holds its times).
  struct Node {
    SimTime start = 0, end = 0, duration = 0, key = 0;
    std::uint32_t device = 0, index = 0, input_begin = 0, consumer_begin = 0;
    std::uint16_t inputs = 0, consumers = 0;
    unsigned queued = 0, keyed = 0, saved = 0;
  };
  struct Input {
    std::uint32_t op;
    SimTime delay;  // what the transfer adds to the producer's end
  };
  std::vector<Node> node_;
  std::vector<std::vector<int>> order_;
  std::vector<Input> input_;
  std::vector<std::uint32_t> consumer_;
  SimTime sum_of_ends_ = 0;
  long long work_ = 0;
  bool deadlocked_ = false;

  // One trial: the range of places each device's moves changed, the moves to take back, each
  // changed op's times before it, and the ops waiting to be timed, earliest key first.
  struct Range {
    std::size_t device, low, high;
  };
  std::vector<Range> ranges_;
  struct Moved {
    std::size_t device, from, to;
  };
  std::vector<Moved> moves_;
  struct Before {
    std::size_t op;
    SimTime start, end;
  };
  std::vector<Before> before_;
  std::vector<std::pair<SimTime, std::size_t>> heap_;
  unsigned trial_ = 0;
  // The search for a cycle's marks (the trial that saw an op, that finished it) and scratch:
  // the heads of the links a move turned back, the path (op, next link), a range's starts.
  std::vector<unsigned> seen_, finished_;
  std::vector<std::size_t> heads_;
  std::vector<std::pair<std::size_t, std::size_t>> stack_;
  std::vector<SimTime> starts_;
  // The full timing's scratch: each device's next op, whether it is queued, the queue.
  std::vector<std::size_t> next_;
  std::vector<bool> waiting_;
  std::vector<std::size_t> ready_;
};

}  // namespace pipeplan
