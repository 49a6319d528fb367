#pragma once
// What each op waits for (DESIGN.md, "Dependencies"): F(s,m) needs F(s-1,m); B or BW of (s,m)
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
  std::array<Dependency, 4> items{};
  std::size_t count = 0;

  [[nodiscard]] const Dependency* begin() const { return items.data(); }
  [[nodiscard]] const Dependency* end() const { return items.data() + count; }
};

/// The dependencies of `op` in a pipeline of `stages` stages.
[[nodiscard]] Dependencies dependencies_of(const Op& op, int stages);

/// True when an op of kind `kind` satisfies `need`.
[[nodiscard]] constexpr bool satisfies(OpKind kind, Need need) {
  switch (need) {
    case Need::Forward: return kind == OpKind::F;
    case Need::InputGradient: return gives_input_gradient(kind);
    case Need::SplitB: return kind == OpKind::B;
  }
  return false;
}

/// A name for messages: "F(s1,m2)", "B or BW(s1,m2)", "B(s1,m2)".
[[nodiscard]] std::string describe(const Dependency& dep);

}  // namespace pipeplan
