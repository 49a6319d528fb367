#include "model/lowered.hpp"

#include <array>

namespace pipeplan {

namespace {
constexpr std::array<std::string_view, 4> kNames = {"SEND_F", "RECV_F", "SEND_B", "RECV_B"};
}  // namespace

std::string_view comm_kind_name(CommKind kind) {
  return kNames.at(static_cast<std::size_t>(kind));
}

std::optional<CommKind> parse_comm_kind(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<CommKind>(i);
  }
  return std::nullopt;
}

CommOp CommOp::matching() const {
  switch (kind) {
    case CommKind::SendF:
      return {CommKind::RecvF, stage + 1, microbatch};
    case CommKind::RecvF:
      return {CommKind::SendF, stage - 1, microbatch};
    case CommKind::SendB:
      return {CommKind::RecvB, stage - 1, microbatch};
    case CommKind::RecvB:
      return {CommKind::SendB, stage + 1, microbatch};
  }
  return *this;
}

std::string describe(const CommOp& comm) {
  return std::string(comm_kind_name(comm.kind)) + "(s" + std::to_string(comm.stage) + ",m" +
         std::to_string(comm.microbatch) + ")";
}

bool has_communication(const LoweredSchedule& lowered) {
  for (const auto& list : lowered.actions) {
    for (const LoweredAction& a : list) {
      if (a.is_comm) return true;
    }
  }
  return false;
}

std::string describe(const LoweredAction& action) {
  return action.is_comm ? describe(action.comm) : describe(action.op);
}

}  // namespace pipeplan
