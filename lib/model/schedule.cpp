#include "model/schedule.hpp"

namespace pipeplan {

std::size_t Schedule::op_count() const {
  std::size_t n = 0;
  for (const auto& ops : order) n += ops.size();
  return n;
}

}  // namespace pipeplan
