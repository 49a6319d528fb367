#pragma once
// "Did you mean ...?" for names the user mistyped.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pipeplan {

/// Up to `count` of `candidates` closest to `name` by edit distance, closest first (ties keep
/// the candidates' order). Candidates more than half their length away are left out; one that
/// `name` (2 characters or more) begins comes before every other but an exact match.
[[nodiscard]] std::vector<std::string> closest_names(std::string_view name,
                                                     std::span<const std::string_view> candidates, std::size_t count);

}  // namespace pipeplan
