#include "model/dependencies.hpp"

#include <string>

namespace pipeplan {

Dependencies dependencies_of(const Op& op, int stages) {
  Dependencies deps;
  auto add = [&deps](Need need, int stage, int microbatch) {
    deps.items[deps.count++] = Dependency{need, stage, microbatch};
  };
  switch (op.kind) {
    case OpKind::F:
      if (op.stage > 0) add(Need::Forward, op.stage - 1, op.microbatch);
      break;
    case OpKind::B:
    case OpKind::BW:
      add(Need::Forward, op.stage, op.microbatch);
      if (op.stage + 1 < stages) add(Need::InputGradient, op.stage + 1, op.microbatch);
      break;
    case OpKind::W:
      add(Need::SplitB, op.stage, op.microbatch);
      break;
    case OpKind::FB:
      for (const Op& part : {op.forward_part(), op.backward_part()}) {
        for (const Dependency& dep : dependencies_of(part, stages)) add(dep.need, dep.stage, dep.microbatch);
      }
      break;
  }
  return deps;
}

std::string describe(const Dependency& dep) {
  std::string kind = dep.need == Need::Forward         ? "F"
                     : dep.need == Need::InputGradient ? "B or BW"
                                                       : "B";
  return kind + "(s" + std::to_string(dep.stage) + ",m" + std::to_string(dep.microbatch) + ")";
}

}  // namespace pipeplan
