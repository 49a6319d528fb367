#include "io/critical_marks.hpp"

#include <algorithm>
#include <functional>

namespace pipeplan {

namespace {

bool op_before(const CriticalStep& step, const OpTiming* t) {
  return std::less<const OpTiming*>()(step.op, t);
}

}  // namespace

CriticalMarks::CriticalMarks(const Schedule& schedule, const SimResult& result)
    : path_(critical_path(schedule, result)), by_op_(path_) {
  std::sort(by_op_.begin(), by_op_.end(),
            [](const CriticalStep& a, const CriticalStep& b) { return op_before(a, b.op); });
}

const CriticalStep* CriticalMarks::step_of(const OpTiming& t) const {
  const auto it = std::lower_bound(by_op_.begin(), by_op_.end(), &t, op_before);
  return it != by_op_.end() && it->op == &t ? &*it : nullptr;
}

bool CriticalMarks::has_transfer(const OpTiming& consumer, const Dependency& dep) const {
  const CriticalStep* step = step_of(consumer);
  return step != nullptr && step->after_transfer && step->input.need == dep.need && step->input.stage == dep.stage &&
         step->input.microbatch == dep.microbatch;
}

}  // namespace pipeplan
