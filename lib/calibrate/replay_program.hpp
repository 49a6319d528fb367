#pragma once
// What each rank of `pipeplan-gpu replay` does, in order (docs/gpu.md): its compute ops, and
// between them groups of sends and receives taken from the timed lowering, which no ordering
// deadlock can break; and the runner that drives one thread per rank through a transport. The
// transport is NCCL on GPUs and FakeTransport in the tests.
#include <functional>
#include <span>
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
  Op op;                               ///< when compute
  std::vector<ReplayTransfer> group;   ///< otherwise: posted together, done when all are
};

struct ReplayProgram {
  std::vector<std::vector<ReplayStep>> ranks;
};

/// The program of every rank: the schedule lowered with the timed policy under `costs`, each
/// gap's posts one group.
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
};

/// An in-memory transport with NCCL's matching rules, for tests: it checks that both ends of
/// every pair agree on the tensor, and reports a deadlock (every rank that has not finished
/// waiting in exchange) instead of hanging. Thread-safe.
class FakeTransport : public Transport {
 public:
  explicit FakeTransport(int ranks);
  ~FakeTransport() override;
  FakeTransport(const FakeTransport&) = delete;
  FakeTransport& operator=(const FakeTransport&) = delete;

  void exchange(int rank, std::span<const ReplayTransfer> group) override;
  /// A rank has run its whole program (so it will post nothing more).
  void finished(int rank);
  /// Transfers completed so far.
  [[nodiscard]] long long completed() const;

 private:
  struct State;
  State* state_;
};

/// Runs every rank's program on a thread of its own: compute(rank, op) for compute steps,
/// transport.exchange for groups. Throws Error when a rank fails (a deadlock or a mispairing
/// the transport reports), after every thread has stopped.
void run_replay(const ReplayProgram& program, Transport& transport, FakeTransport* fake,
                const std::function<void(int, const Op&)>& compute);

}  // namespace pipeplan
