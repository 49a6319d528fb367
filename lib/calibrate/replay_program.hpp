#pragma once
// What each rank of `pipeplan-gpu replay` does, in order (docs/gpu.md): its compute ops, and
// between them groups of sends and receives taken from the timed lowering, which no ordering
// deadlock can break; and the runner that drives one thread per rank through a transport. The
// transport is NCCL on GPUs and FakeTransport in the tests.
#include <chrono>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/lowered.hpp"

namespace pipeplan {

/// One send or receive of a group.
struct ReplayTransfer {
  int peer = 0;
  CommOp comm;
  /// The tensor it carries, the same number at both ends: the send's kind, stage and
  /// micro-batch. A receive that meets a send of another tensor is a mispairing.
  long long tensor = 0;
};

struct ReplayStep {
  bool compute = false;
  Op op;                              ///< when compute
  std::vector<ReplayTransfer> group;  ///< otherwise: posted together, done when all are
};

struct ReplayProgram {
  std::vector<std::vector<ReplayStep>> ranks;
};

/// The program of every rank: the schedule lowered with the timed policy under `costs` for NCCL
/// on the compute stream (CommMode::Blocking), each gap's posts one group.
[[nodiscard]] ReplayProgram replay_program(const Schedule& schedule, const CostModel& costs);

/// The program of a given lowering: its batched posts form groups, the others go alone.
[[nodiscard]] ReplayProgram replay_program(const LoweredSchedule& lowered);

/// Moves tensors between ranks. exchange() posts a group for `rank` and returns once every
/// transfer of the group has completed (NCCL's semantics: a send completes when the peer has
/// posted the matching receive, pairs matched in posting order per rank pair).
class Transport {
 public:
  virtual ~Transport() = default;
  virtual void exchange(int rank, std::span<const ReplayTransfer> group) = 0;
  /// Stops every exchange in progress or to come, which then throws: a rank that failed will
  /// never post its part, and its peers would wait for it forever (NCCL has no timeout).
  /// Called once, from the failing rank's thread, while others may be in exchange().
  virtual void abort(const std::string& reason) = 0;
};

/// An in-memory transport with NCCL's matching rules, for tests: it checks that both ends of
/// every pair agree on the tensor, and reports a deadlock (every rank that has not finished
/// waiting in exchange) instead of hanging. Thread-safe. With `detect_deadlock` false it waits
/// as NCCL does, for a peer that may never come, but gives up after `hang_limit` and says so
/// (hung()), so that a test of the abort fails instead of hanging.
class FakeTransport : public Transport {
 public:
  explicit FakeTransport(int ranks, bool detect_deadlock = true,
                         std::chrono::milliseconds hang_limit = std::chrono::seconds(20));
  ~FakeTransport() override;
  FakeTransport(const FakeTransport&) = delete;
  FakeTransport& operator=(const FakeTransport&) = delete;

  void exchange(int rank, std::span<const ReplayTransfer> group) override;
  void abort(const std::string& reason) override;
  /// A rank has run its whole program (so it will post nothing more).
  void finished(int rank);
  /// Transfers completed so far.
  [[nodiscard]] long long completed() const;
  /// A wait ran past the hang limit.
  [[nodiscard]] bool hung() const;

 private:
  struct State;
  State* state_;
};

/// Runs every rank's program on a thread of its own: compute(rank, op) for compute steps,
/// transport.exchange for groups. On the first failure of a rank (a kernel's error, or a
/// deadlock or a mispairing the transport reports) it aborts the transport, so that no peer
/// waits for that rank forever; once every thread has stopped it rethrows that first failure.
void run_replay(const ReplayProgram& program, Transport& transport, FakeTransport* fake,
                const std::function<void(int, const Op&)>& compute);

}  // namespace pipeplan
