#include "model/closest_names.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace pipeplan {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0U : 1U)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> closest_names(std::string_view name, std::span<const std::string_view> candidates,
                                       std::size_t count) {
  // Twice the edit distance, so that a candidate the name begins (a100 of a100-40gb, which is 5
  // edits away where h100 is 1) ranks at 1, after only an exact match: the user typed its start.
  std::vector<std::pair<std::size_t, std::string_view>> ranked;
  for (std::string_view c : candidates) {
    if (name.size() >= 2 && c.size() > name.size() && c.starts_with(name)) {
      ranked.emplace_back(1, c);
      continue;
    }
    std::size_t distance = edit_distance(name, c);
    if (distance <= std::max<std::size_t>(2, c.size() / 2)) ranked.emplace_back(2 * distance, c);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (std::size_t i = 0; i < ranked.size() && i < count; ++i) names.emplace_back(ranked[i].second);
  return names;
}

}  // namespace pipeplan
