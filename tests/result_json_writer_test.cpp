#include <doctest/doctest.h>

#include "io/result_json.hpp"
#include "lower/lowering.hpp"
#include "sim/comm_simulator.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// Unequal costs with memory, a transfer and optimizer steps, so that every field has a value
// of its own: times with fractions, memory points, iterations that differ.
CostModel varied_costs(const Schedule& s) {
  CostModel c = test::uniform(s, 1, 1.7, 0.3, 1'000'000'007, 250'000'001);
  c.stages.back().f_ms = 1.45;
  c.transfer.fixed_ms = 0.1;
  for (std::size_t d = 0; d < c.devices.size(); ++d) {
    c.devices[d].optimizer_ms = 0.25 * static_cast<double>(d + 1);
    c.devices[d].static_memory_bytes = 1000 * static_cast<Bytes>(d);
  }
  return c;
}

// Streamed through a 64-byte chunk, so that the text crosses many flushes.
std::string streamed(const Schedule& s, const SimResult& r, const ResultCommunication* comm = nullptr) {
  std::string text;
  TextSink sink([&](std::string_view piece) { text.append(piece); }, 64);
  write_result_json(sink, s, r, comm);
  sink.flush();
  return text;
}

}  // namespace

TEST_CASE("the streamed result is the document writer's text, byte for byte") {
  // Split and fused backwards, the V placement, the overlapped FB ops of DualPipeV (with their
  // extra keys), a name to escape, and several iterations in both optimizer modes.
  for (const char* name : {"1f1b", "zbh1", "zbv", "dualpipev", "interleaved"}) {
    for (int iterations : {1, 3}) {
      for (OptimizerMode mode : {OptimizerMode::Sync, OptimizerMode::PostValidation}) {
        CAPTURE(name);
        CAPTURE(iterations);
        Schedule s = test::generated(name, 4, 8);
        s.name += " \"quoted\"";
        const SimResult r = simulate(s, varied_costs(s), {iterations, mode});
        CHECK(streamed(s, r) == to_json_text(result_to_json(s, r)));
      }
    }
  }
}

TEST_CASE("a streamed result with its communication ends with the key cmd_simulate used to add") {
  const Schedule s = test::generated("zbh1", 3, 4);
  const CostModel c = varied_costs(s);
  const SimResult r = simulate_with_comm(lower(s, LowerPolicy::Timed, &c), c, CommMode::Rendezvous).result;
  Json document = result_to_json(s, r);
  document["communication"] = {{"mode", "rendezvous"}, {"lowering", "timed"}};
  const ResultCommunication comm{"rendezvous", "timed"};
  CHECK(streamed(s, r, &comm) == to_json_text(document));
}

TEST_CASE("a run without op timings streams empty lists as the document does") {
  const Schedule s = test::generated("1f1b", 2, 2);
  SimOptions options;
  options.record_timeline = false;
  SimResult r = simulate(s, test::uniform(s, 1, 1, 1), options);
  r.devices[1].memory.clear();  // a loaded result may have none
  CHECK(streamed(s, r) == to_json_text(result_to_json(s, r)));
}
