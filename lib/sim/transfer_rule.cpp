#include "sim/transfer_rule.hpp"

#include <algorithm>

namespace pipeplan {

TransferRule::TransferRule(const CostModel& costs) : crossing_(boundary_transfer_ns(costs)) {}

SimTime TransferRule::longest() const {
  return crossing_.empty() ? 0 : *std::max_element(crossing_.begin(), crossing_.end());
}

}  // namespace pipeplan
