#include "model/placement.hpp"

namespace pipeplan {

std::vector<int> loop_placement(int devices, int chunks) {
  std::vector<int> placement;
  placement.reserve(static_cast<std::size_t>(devices * chunks));
  for (int s = 0; s < devices * chunks; ++s) placement.push_back(s % devices);
  return placement;
}

std::vector<int> vee_placement(int devices) {
  std::vector<int> placement;
  placement.reserve(static_cast<std::size_t>(2 * devices));
  for (int s = 0; s < 2 * devices; ++s) placement.push_back(s < devices ? s : 2 * devices - 1 - s);
  return placement;
}

}  // namespace pipeplan
