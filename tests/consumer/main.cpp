// Uses the installed library through its umbrella header: 1F1B on 4 devices with 8 micro-batches
// and F = B = W = 1 ms takes (M + P - 1)(F + B + W) = 11 * 3 = 33 ms (Narayanan et al. 2021,
// section 2.2), and the schedule JSON reads back as written.
#include <pipeplan/pipeplan.hpp>

#include <cstdio>

int main() {
  try {
    pipeplan::GenerateRequest request;
    request.devices = 4;
    request.microbatches = 8;
    const pipeplan::Schedule schedule = pipeplan::find_generator("1f1b")->generate(request);
    const pipeplan::CostModel costs = pipeplan::uniform_costs(4, 4, {1.0, 1.0, 1.0, 0, 0}, 0.0);
    const pipeplan::SimResult result = pipeplan::simulate(schedule, costs);
    const double makespan = pipeplan::ns_to_ms(result.makespan);
    const pipeplan::Schedule back = pipeplan::schedule_from_json(pipeplan::schedule_to_json(schedule), "consumer");
    std::printf("%s: 1f1b P=4 M=8 makespan %.3f ms\n", pipeplan::tool_version().c_str(), makespan);
    if (makespan != 33.0 || back.order != schedule.order) return 1;
    return 0;
  } catch (const pipeplan::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
