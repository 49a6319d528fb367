#include "io/analytic_profile_json.hpp"

#include "io/profile_json.hpp"

namespace pipeplan {

Json analytic_profile_to_json(const CostModel& costs, const std::string& name, const std::string& source) {
  Json body = profile_to_json(costs);
  Json out;
  for (const char* key : {"format", "schema_version", "tool"}) {
    if (body.contains(key)) out[key] = body[key];
  }
  out["name"] = name;
  out["source"] = source;
  for (auto& [key, value] : body.items()) {
    if (!out.contains(key)) out[key] = value;
  }
  return out;
}

}  // namespace pipeplan
