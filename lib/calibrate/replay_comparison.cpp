#include "calibrate/replay_comparison.hpp"

#include <algorithm>
#include <cstdlib>

#include "model/error.hpp"

namespace pipeplan {

SimResult measured_result(const ReplayProgram& program, const std::vector<std::vector<MeasuredOp>>& ops) {
  if (ops.size() != program.ranks.size())
    throw Error("measured times for " + std::to_string(ops.size()) + " ranks of " +
                std::to_string(program.ranks.size()));
  SimResult out;
  out.devices.resize(program.ranks.size());
  for (std::size_t r = 0; r < program.ranks.size(); ++r) {
    DeviceTimeline& t = out.devices[r];
    t.iterations.resize(1);
    t.memory.push_back({0, 0});  // replay measures time, not memory
    IterationTimes& it = t.iterations.front();
    std::size_t e = 0;
    for (const ReplayStep& s : program.ranks[r]) {
      if (!s.compute) continue;
      if (e == ops[r].size()) throw Error("rank " + std::to_string(r) + ": fewer measured ops than compute steps");
      const MeasuredOp& m = ops[r][e++];
      if (t.ops.empty()) it.first_start = m.start;
      it.busy += m.end - m.start;
      it.last_end = it.optimizer_start = it.optimizer_end = m.end;
      t.ops.push_back({static_cast<int>(r), 0, s.op, m.start, m.end});
      out.makespan = std::max(out.makespan, m.end);
    }
    if (e != ops[r].size()) throw Error("rank " + std::to_string(r) + ": more measured ops than compute steps");
  }
  return out;
}

namespace {

double bubble(const SimResult& s, std::size_t device) {
  if (s.makespan <= 0) return 0.0;
  return 1.0 - static_cast<double>(s.devices[device].busy()) / static_cast<double>(s.makespan);
}

}  // namespace

ReplayComparison compare_replay(const SimResult& predicted, const SimResult& measured, double threshold) {
  if (predicted.devices.size() != measured.devices.size())
    throw Error("the prediction and the replay have different devices");
  ReplayComparison c;
  c.threshold = threshold;
  c.predicted_ms = ns_to_ms(predicted.makespan);
  c.measured_ms = ns_to_ms(measured.makespan);
  c.error_percent = measured.makespan > 0 ? 100.0 * (c.predicted_ms - c.measured_ms) / c.measured_ms : 0.0;
  const auto limit = static_cast<SimTime>(threshold * static_cast<double>(predicted.makespan));
  for (std::size_t d = 0; d < predicted.devices.size(); ++d) {
    c.predicted_bubble.push_back(bubble(predicted, d));
    c.measured_bubble.push_back(bubble(measured, d));
    const auto& want = predicted.devices[d].ops;
    const auto& got = measured.devices[d].ops;
    for (std::size_t i = 0; i < want.size() && i < got.size() && !c.first_parted; ++i) {
      if (std::llabs(want[i].start - got[i].start) > limit) {
        c.first_parted = PartedOp{static_cast<int>(d), i, got[i].op, want[i].start, got[i].start};
      }
    }
  }
  return c;
}

}  // namespace pipeplan
