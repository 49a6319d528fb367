#include "test_support.hpp"

#include <doctest/doctest.h>

#include "model/error.hpp"

namespace pipeplan::test {

GenerateRequest request(int devices, int microbatches, int chunks) {
  GenerateRequest r;
  r.devices = devices;
  r.microbatches = microbatches;
  r.chunks = chunks;
  return r;
}

Schedule generated(const std::string& name, int devices, int microbatches) {
  const Generator* g = find_generator(name);
  if (g == nullptr) throw Error("no generator " + name);
  GenerateRequest r = request(devices, microbatches, g->chunks_for(0));
  CostModel unit = uniform_costs(devices * r.chunks, devices, StageCost{1, 1, 1, 0, 0}, 0);
  r.costs = &unit;
  return g->generate(r);
}

CostModel uniform(const Schedule& s, double f, double b, double w, Bytes a_f, Bytes a_w) {
  return uniform_costs(s.stages, s.devices, StageCost{f, b, w, a_f, a_w}, 0.0);
}

std::string lowered_listing(const LoweredSchedule& l, std::size_t device) {
  std::string text;
  for (const LoweredAction& a : l.actions[device]) {
    if (!text.empty()) text += ' ';
    if (a.batched) text += '+';
    text += a.is_comm ? describe(a.comm) : describe(a.op);
  }
  return text;
}

CostModel two_stage_costs(DeviceCost device0, DeviceCost device1) {
  CostModel c;
  c.stages = {StageCost{1, 2, 1, 100, 40}, StageCost{2, 3, 1, 200, 50}};
  c.devices = {device0, device1};
  c.transfer.fixed_ms = 0.5;
  return c;
}

std::vector<OpTiming> all_ops(const SimResult& result) {
  std::vector<OpTiming> ops;
  for (const OpTiming* t : result.ops_by_start()) ops.push_back(*t);
  return ops;
}

void check_same_lowering(const LoweredSchedule& a, const LoweredSchedule& b) {
  CHECK(a.schedule.name == b.schedule.name);
  CHECK(a.schedule.devices == b.schedule.devices);
  CHECK(a.schedule.stages == b.schedule.stages);
  CHECK(a.schedule.microbatches == b.schedule.microbatches);
  CHECK(a.schedule.placement == b.schedule.placement);
  CHECK(a.schedule.order == b.schedule.order);
  CHECK(a.policy == b.policy);
  REQUIRE(a.actions.size() == b.actions.size());
  for (std::size_t d = 0; d < a.actions.size(); ++d) {
    REQUIRE(a.actions[d].size() == b.actions[d].size());
    for (std::size_t i = 0; i < a.actions[d].size(); ++i) {
      CHECK(a.actions[d][i].is_comm == b.actions[d][i].is_comm);
      CHECK(a.actions[d][i].batched == b.actions[d][i].batched);
      if (a.actions[d][i].is_comm) CHECK(a.actions[d][i].comm == b.actions[d][i].comm);
    }
  }
}

}  // namespace pipeplan::test
