#pragma once
// "Did you mean ...?" for names the user mistyped.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pipeplan {

/// Up to `count` of `candidates` closest to `name` by edit distance, closest first (ties keep
/// the candidates' order). Candidates more than half their length away are left out.
[[nodiscard]] std::vector<std::string> closest_names(std::string_view name,
                                                     std::span<const std::string_view> candidates, std::size_t count);

}  // namespace pipeplan
