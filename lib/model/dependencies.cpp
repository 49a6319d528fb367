#include "model/dependencies.hpp"

#include <string>

namespace pipeplan {

Dependencies detail::compound_dependencies(const Op& op, int stages) {
  Dependencies deps;
  for (const Op& part : {op.forward_part(), op.backward_part()}) {
    for (const Dependency& dep : dependencies_of(part, stages)) deps.items[deps.count++] = dep;
  }
  return deps;
}

std::string describe(const Dependency& dep) {
  std::string kind = dep.need == Need::Forward ? "F" : dep.need == Need::InputGradient ? "B or BW" : "B";
  return kind + "(s" + std::to_string(dep.stage) + ",m" + std::to_string(dep.microbatch) + ")";
}

}  // namespace pipeplan
