#pragma once
// What each op waits for (docs/model.md, "Dependencies"): F(s,m) needs F(s-1,m); B or BW of (s,m)
// needs F(s,m) and the input gradient of (s+1,m), which B or BW of stage s+1 gives; W(s,m)
// needs B(s,m). The last stage's backward needs only its own forward.
#include <array>
#include <cstddef>

#include "model/op.hpp"

namespace pipeplan {

/// What a dependency asks for: the forward, the input gradient (from B or from BW), or
/// specifically the split B (W can follow only a B, never a BW).
enum class Need : unsigned char { Forward, InputGradient, SplitB };

struct Dependency {
  Need need = Need::Forward;
  int stage = 0;
  int microbatch = 0;
};

/// At most four dependencies of one op (an FB has those of its forward and its backward).
struct Dependencies {
  std::array<Dependency, 4> items;  // the first `count` are set
  std::size_t count = 0;

  [[nodiscard]] const Dependency* begin() const { return items.data(); }
  [[nodiscard]] const Dependency* end() const { return items.data() + count; }
};

namespace detail {
/// An FB's dependencies: those of its forward and of its fused backward.
[[nodiscard]] Dependencies compound_dependencies(const Op& op, int stages);
}  // namespace detail

/// The dependencies of `op` in a pipeline of `stages` stages. Inline: both simulators and the
/// structural check ask it for every op.
[[nodiscard]] inline Dependencies dependencies_of(const Op& op, int stages) {
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
      return detail::compound_dependencies(op, stages);
  }
  return deps;
}

/// The stage boundary (docs/model.md) that `dep`'s data crosses when its producer runs on another
/// device than the op that needs it: a forward goes from dep.stage to dep.stage + 1 (boundary
/// dep.stage), an input gradient from dep.stage back to dep.stage - 1 (boundary dep.stage - 1).
/// Only those two needs join different stages; an op's other needs are its own stage's, on its
/// own device, and cross nothing.
[[nodiscard]] constexpr int crossed_boundary(const Dependency& dep) {
  return dep.need == Need::Forward ? dep.stage : dep.stage - 1;
}

/// True when an op of kind `kind` satisfies `need`.
[[nodiscard]] constexpr bool satisfies(OpKind kind, Need need) {
  switch (need) {
    case Need::Forward:
      return kind == OpKind::F;
    case Need::InputGradient:
      return gives_input_gradient(kind);
    case Need::SplitB:
      return kind == OpKind::B;
  }
  return false;
}

/// A name for messages: "F(s1,m2)", "B or BW(s1,m2)", "B(s1,m2)".
[[nodiscard]] std::string describe(const Dependency& dep);

}  // namespace pipeplan
