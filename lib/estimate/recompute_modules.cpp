#include "estimate/recompute_modules.hpp"

#include <algorithm>

namespace pipeplan {

std::optional<RecomputeModules> recompute_modules_named(std::string_view list, std::string& bad) {
  RecomputeModules set = 0;
  std::size_t from = 0;
  while (from <= list.size()) {
    const std::size_t comma = std::min(list.find(',', from), list.size());
    const std::string_view word = list.substr(from, comma - from);
    const std::optional<RecomputeModule> m = enum_named(kRecomputeModules, word);
    if (!m || has_module(set, *m)) {
      bad = std::string(word);
      return std::nullopt;
    }
    set |= unsigned(*m);
    from = comma + 1;
  }
  return set;
}

RecomputeModules light_recompute_modules(const ModelConfig& m) {
  RecomputeModules set = 0;
  if (m.is_moe()) set |= unsigned(RecomputeModule::MoeAct) | unsigned(RecomputeModule::Layernorm);
  if (m.latent.enabled()) set |= unsigned(RecomputeModule::MlaUpProj) | unsigned(RecomputeModule::Layernorm);
  return set;
}

std::vector<std::string_view> recompute_modules_list(RecomputeModules set) {
  std::vector<std::string_view> names;
  for (const auto& row : kRecomputeModules) {
    if (has_module(set, row.value)) names.push_back(row.name);
  }
  return names;
}

std::string recompute_modules_names(RecomputeModules set, std::string_view separator) {
  std::string out;
  for (std::string_view name : recompute_modules_list(set)) {
    if (!out.empty()) out += separator;
    out += name;
  }
  return out;
}

}  // namespace pipeplan
