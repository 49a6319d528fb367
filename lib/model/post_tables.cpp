#include "model/post_tables.hpp"

#include "model/dependencies.hpp"

namespace pipeplan {

namespace {
int device_of(const Schedule& s, int stage) {
  return s.placement[static_cast<std::size_t>(stage)];
}
}  // namespace

CommOps receives_of(const Schedule& s, const Op& op, int device) {
  CommOps out;
  for (const Dependency& dep : dependencies_of(op, s.stages)) {
    if (device_of(s, dep.stage) == device) continue;
    if (dep.need == Need::Forward) {
      out.push_back({CommKind::RecvF, dep.stage + 1, dep.microbatch});
    } else {
      out.push_back({CommKind::RecvB, dep.stage - 1, dep.microbatch});
    }
  }
  return out;
}

CommOps sends_of(const Schedule& s, const Op& op, int device) {
  CommOps out;
  const bool forward = op.kind == OpKind::F || op.kind == OpKind::FB;
  if (forward && op.stage + 1 < s.stages && device_of(s, op.stage + 1) != device) {
    out.push_back({CommKind::SendF, op.stage, op.microbatch});
  }
  const Op backward = op.kind == OpKind::FB ? op.backward_part() : op;
  if (gives_input_gradient(backward.kind) && backward.stage > 0 && device_of(s, backward.stage - 1) != device) {
    out.push_back({CommKind::SendB, backward.stage, backward.microbatch});
  }
  return out;
}

}  // namespace pipeplan
