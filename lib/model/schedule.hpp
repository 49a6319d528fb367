#pragma once
// A schedule: for every device, the ordered list of the ops it runs. Devices run their lists
// strictly in order; nothing downstream reorders them.
#include <cstddef>
#include <string>
#include <vector>

#include "model/op.hpp"

namespace pipeplan {

struct Schedule {
  std::string name;
  int devices = 0;
  int stages = 0;
  int microbatches = 0;
  std::vector<int> placement;          ///< device of each stage, size `stages`
  std::vector<std::vector<Op>> order;  ///< ops of each device, size `devices`

  /// Total number of ops over all devices.
  [[nodiscard]] std::size_t op_count() const;
};

}  // namespace pipeplan
