#include "validate/deadlock_text.hpp"

namespace pipeplan {

std::string describe(const StuckDevice& stuck) {
  const std::string device = "device " + std::to_string(stuck.device);
  if (stuck.reason == StuckReason::AtCompute) {
    return device + " is stuck at " + (stuck.post ? describe(*stuck.post) : std::string("the end of its list"));
  }
  if (stuck.reason == StuckReason::Unexplained || !stuck.post) return device + " is stuck";
  const CommOp& c = stuck.post->comm;
  const std::string line =
      device + " posted " + describe(c) + (c.is_send() ? " to" : " from") + " device " + std::to_string(stuck.peer);
  switch (stuck.reason) {
    case StuckReason::DataNotReady:
      return line + " but cannot post it: its data is not produced yet";
    case StuckReason::LinkBusy:
      return line + ", which waits for the transfer before it on the link";
    default:
      return line + ", which has not posted " + describe(c.matching()) +
             " (its next post: " + (stuck.peer_next ? describe(*stuck.peer_next) : std::string("none")) + ")";
  }
}

std::string describe_cycle(const std::vector<int>& cycle) {
  std::string out;
  for (int d : cycle) out += (out.empty() ? "device " : " -> device ") + std::to_string(d);
  return out;
}

}  // namespace pipeplan
