#include "test_support.hpp"

#include "model/error.hpp"

namespace pipeplan::test {

Schedule generated(const std::string& name, int devices, int microbatches) {
  const Generator* g = find_generator(name);
  if (g == nullptr) throw Error("no generator " + name);
  return g->generate(GenerateRequest{devices, microbatches, g->chunks_for(0), 0});
}

CostModel uniform(const Schedule& s, double f, double b, double w, Bytes a_f, Bytes a_w) {
  return uniform_costs(s.stages, s.devices, StageCost{f, b, w, a_f, a_w}, 0.0);
}

}  // namespace pipeplan::test
