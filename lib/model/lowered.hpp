#pragma once
// A schedule lowered to what each device posts (docs/model.md, "Communication"): its compute ops
// in order, with the sends and receives of every cross-device dependency between them, in the
// vocabulary of PyTorch pipelining's CSV: SEND_F(s,m) sends stage s's forward output of
// micro-batch m to stage s+1, RECV_F(s,m) receives stage s's forward input from stage s-1,
// SEND_B(s,m) sends stage s's input gradient to stage s-1, RECV_B(s,m) receives it from s+1.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/schedule.hpp"

namespace pipeplan {

enum class CommKind : std::uint8_t { SendF, RecvF, SendB, RecvB };

/// "SEND_F", "RECV_F", "SEND_B", "RECV_B", and back (nullopt for other names).
[[nodiscard]] std::string_view comm_kind_name(CommKind kind);
[[nodiscard]] std::optional<CommKind> parse_comm_kind(std::string_view name);

struct CommOp {
  CommKind kind = CommKind::SendF;
  int stage = 0;
  int microbatch = 0;

  [[nodiscard]] bool is_send() const { return kind == CommKind::SendF || kind == CommKind::SendB; }
  /// The stage at the other end: s+1 for SEND_F and RECV_B, s-1 for RECV_F and SEND_B.
  [[nodiscard]] int peer_stage() const {
    return kind == CommKind::SendF || kind == CommKind::RecvB ? stage + 1 : stage - 1;
  }
  /// The stage boundary the transfer crosses (boundary s joins stages s and s + 1): s for SEND_F
  /// and RECV_B, s - 1 for RECV_F and SEND_B.
  [[nodiscard]] int boundary() const { return kind == CommKind::SendF || kind == CommKind::RecvB ? stage : stage - 1; }
  /// The op at the other end that completes this one: SEND_F(s,m) with RECV_F(s+1,m), and so on.
  [[nodiscard]] CommOp matching() const;

  friend bool operator==(const CommOp&, const CommOp&) = default;
};

/// "SEND_F(s0,m3)".
[[nodiscard]] std::string describe(const CommOp& comm);

/// A send or receive as one number, for hash tables: its kind, stage and micro-batch (each
/// below 2^20, which pipeplan's limits keep them).
[[nodiscard]] constexpr std::uint64_t comm_key(const CommOp& c) {
  return (static_cast<std::uint64_t>(c.kind) << 48) |
         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.stage)) << 24) |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.microbatch));
}

/// Numbers every send and receive of a schedule 0 .. size() - 1 by kind, stage and micro-batch,
/// for flat tables where a hash table of comm_key would allocate per entry. Only for comm ops whose
/// stage and micro-batch are in range.
class CommIndex {
 public:
  CommIndex(int stages, int microbatches)
      : stages_(static_cast<std::size_t>(stages)), microbatches_(static_cast<std::size_t>(microbatches)) {}
  [[nodiscard]] std::size_t size() const { return 4 * stages_ * microbatches_; }
  [[nodiscard]] std::size_t operator()(const CommOp& c) const {
    return (static_cast<std::size_t>(c.kind) * stages_ + static_cast<std::size_t>(c.stage)) * microbatches_ +
           static_cast<std::size_t>(c.microbatch);
  }

 private:
  std::size_t stages_;
  std::size_t microbatches_;
};

/// One entry of a device's lowered list: a compute op or a send or receive. A send or receive
/// with `batched` set is posted in one group with the entry before it (ncclGroupStart/End,
/// PyTorch's batch_isend_irecv): the group's transfers proceed together.
struct LoweredAction {
  bool is_comm = false;
  Op op;        ///< when !is_comm
  CommOp comm;  ///< when is_comm
  bool batched = false;

  [[nodiscard]] static LoweredAction compute(const Op& op) { return {false, op, {}, false}; }
  [[nodiscard]] static LoweredAction communicate(const CommOp& comm, bool batched) { return {true, {}, comm, batched}; }
};

struct LoweredSchedule {
  Schedule schedule;   ///< the compute ops alone, in the same order
  std::string policy;  ///< the lowering policy that produced it, or "" when read from a file without one
  std::vector<std::vector<LoweredAction>> actions;  ///< per device
};

/// True when the lowered schedule has any send or receive (a file lowered already), false for
/// a plain compute schedule that still needs a lowering policy.
[[nodiscard]] bool has_communication(const LoweredSchedule& lowered);

/// "F(s0,m1)" for a compute op, "SEND_F(s0,m3)" for a send or receive.
[[nodiscard]] std::string describe(const LoweredAction& action);

}  // namespace pipeplan
