#include <doctest/doctest.h>

#include "io/chrome_trace.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

CostModel costs_with_memory(const Schedule& s) {
  CostModel c = test::uniform(s, 1, 1.2, 0.8, 3'000'000'000, 700'000'000);
  c.transfer.fixed_ms = 0.15;
  for (DeviceCost& d : c.devices) d.optimizer_ms = 0.5;
  return c;
}

template <class Write>
std::string streamed(Write&& write) {
  std::string text;
  TextSink sink([&](std::string_view piece) { text.append(piece); }, 64);
  write(sink);
  sink.flush();
  return text;
}

}  // namespace

TEST_CASE("the streamed trace is the document writer's text, byte for byte") {
  // Flows between devices, none within a device (the V's turn), FB names, iterations.
  for (const char* name : {"1f1b", "zbh1", "zbv", "dualpipev", "interleaved"}) {
    for (int iterations : {1, 2}) {
      CAPTURE(name);
      CAPTURE(iterations);
      const Schedule s = test::generated(name, 4, 8);
      const SimResult r = simulate(s, costs_with_memory(s), {iterations, OptimizerMode::PostValidation});
      CHECK(streamed([&](TextSink& out) { write_chrome_trace(out, s, r); }) == to_json_text(chrome_trace(s, r)));
    }
  }
}

TEST_CASE("the streamed comparison trace is the document writer's text, byte for byte") {
  const Schedule a = test::generated("1f1b", 3, 6), b = test::generated("zbv", 3, 6);
  const SimResult ra = simulate(a, costs_with_memory(a)), rb = simulate(b, costs_with_memory(b));
  const std::vector<TraceRun> runs = {{"1f1b", &a, &ra}, {"zbv", &b, &rb}};
  CHECK(streamed([&](TextSink& out) { write_chrome_trace_comparison(out, runs); }) ==
        to_json_text(chrome_trace_comparison(runs)));
  CHECK(streamed([&](TextSink& out) { write_chrome_trace_comparison(out, {}); }) ==
        to_json_text(chrome_trace_comparison({})));
}
