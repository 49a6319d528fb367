#include "model/wait_cycle.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace pipeplan {

std::vector<int> wait_cycle(const std::vector<std::vector<int>>& waits_on) {
  enum : unsigned char { kNew, kOnPath, kDone };
  std::vector<unsigned char> mark(waits_on.size(), kNew);
  // An iterative depth-first search (P can be thousands): the path, each with its next edge.
  std::vector<std::pair<int, std::size_t>> path;
  for (std::size_t root = 0; root < waits_on.size(); ++root) {
    if (mark[root] != kNew) continue;
    path.emplace_back(static_cast<int>(root), 0);
    mark[root] = kOnPath;
    while (!path.empty()) {
      auto& [device, edge] = path.back();
      const auto& next = waits_on[static_cast<std::size_t>(device)];
      if (edge == next.size()) {
        mark[static_cast<std::size_t>(device)] = kDone;
        path.pop_back();
        continue;
      }
      const int to = next[edge++];
      if (to == device || mark[static_cast<std::size_t>(to)] == kDone) continue;
      if (mark[static_cast<std::size_t>(to)] == kOnPath) {
        auto from = std::find_if(path.begin(), path.end(), [to](const auto& p) { return p.first == to; });
        std::vector<int> cycle;
        for (auto it = from; it != path.end(); ++it) cycle.push_back(it->first);
        std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
        cycle.push_back(cycle.front());
        return cycle;
      }
      mark[static_cast<std::size_t>(to)] = kOnPath;
      path.emplace_back(to, 0);
    }
  }
  return {};
}

}  // namespace pipeplan
