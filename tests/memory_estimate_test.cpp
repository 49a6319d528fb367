// The memory estimate before the work (issue 31, item 8): each term is a sizeof times a count
// (sim/run_memory.hpp, io/memory_estimate.hpp), so these check the counts by hand and the sizes
// against the layout of the types, and that the JSON text never outgrows its bound per entry.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "io/memory_estimate.hpp"
#include "io/schedule_text.hpp"
#include "model/finite.hpp"
#include "sim/sim_result.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("the types the estimate counts have the sizes their fields add up to") {
  // Op: a 1-byte kind padded to 4, and four ints: 20 bytes. OpTiming: two ints, an Op (28 bytes,
  // 4 of padding to the next 8), two SimTime: 48. MemoryPoint: a SimTime and a Bytes: 16.
  CHECK(sizeof(Op) == 20);
  CHECK(sizeof(OpTiming) == 48);
  CHECK(sizeof(MemoryPoint) == 16);
}

TEST_CASE("a run's bytes: readiness per op and iteration, and the timeline when it is kept") {
  // 1000 ops over 2 iterations: 2000 op-iterations x 3 SimTime of readiness = 48,000 bytes.
  CHECK(run_bytes({1000, 2, false, false}) == 48'000);
  // The timeline adds 2000 x (48 + 16 + 8) = 144,000.
  CHECK(run_bytes({1000, 2, true, false}) == 48'000 + 144'000);
  // The op lists: 2 x 20 bytes an op, a list grown by doubling holding twice what it uses.
  CHECK(schedule_bytes(1000) == 40'000);
  CHECK(timing_bytes({1000, 2, true, false}) == 40'000 + 192'000);
  // Communication adds terms for the posts, each growing with the ops: more, never less.
  CHECK(run_bytes({1000, 2, false, true}) > run_bytes({1000, 2, false, false}) + 20'000);
}

TEST_CASE("a generator's estimate: three ops per stage and micro-batch, and the text of each") {
  GenerateRequest r;
  r.devices = 16384;
  r.microbatches = 2000;
  r.chunks = 1;
  CHECK(generated_ops(r) == 98'304'000);
  // Ids below 16384 and 2000 have 5 and 4 digits: 70 + 9 = 79 bytes an entry.
  CHECK(schedule_entry_bytes(16384, 2000) == 79);
  CHECK(schedule_entry_bytes(10, 10) == 72);
  CHECK(schedule_entry_bytes(11, 10) == 73);
  const Generator& gpipe = *find_generator("gpipe");
  CHECK(generation_bytes(gpipe, r, 1, 2, true) == 98'304'000LL * (40 + 79));
  CHECK(generation_bytes(gpipe, r, 1, 2, false) == 98'304'000LL * 40);
  // A generator that plans with the costs keeps the workers' candidates and two more, each timed.
  const Generator& zb = *find_generator("zb");
  CHECK(generation_bytes(zb, r, 1, 2, false) == 98'304'000LL * 40 + 4 * 98'304'000LL * (40 + 24));
}

TEST_CASE("a schedule's JSON fits the bytes the estimate gives its entries") {
  for (const char* name : {"gpipe", "zbh1", "interleaved", "dualpipev"}) {
    CAPTURE(name);
    const Schedule s = test::generated(name, 4, 12);
    const std::string text = schedule_json_text(s);
    const Bytes entry = schedule_entry_bytes(s.stages, s.microbatches);
    // Each plain entry within its bound; an FB's line (two ops' fields) within two.
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("\"kind\"") == std::string::npos) continue;
      const bool fb = line.find("\"FB\"") != std::string::npos;
      CHECK(static_cast<Bytes>(line.size() + 1) <= (fb ? 2 : 1) * entry);
    }
    // The whole order within the bound on the ops (3 per stage and micro-batch) times that.
    GenerateRequest r;
    r.devices = s.devices;
    r.chunks = s.stages / s.devices;
    r.microbatches = s.microbatches;
    CHECK(static_cast<Bytes>(text.size() - text.find("\"order\"")) <= generated_ops(r) * entry);
  }
}

TEST_CASE("one check for every floating value: NaN and infinity fail it, whatever the range") {
  CHECK(finite_within(0.5, 0.01, 1.0));
  CHECK(finite_within(0.01, 0.01, 1.0));  // both ends included
  CHECK(finite_within(1.0, 0.01, 1.0));
  CHECK_FALSE(finite_within(1.0000001, 0.01, 1.0));
  CHECK_FALSE(finite_within(NAN, 0.01, 1.0));
  CHECK_FALSE(finite_within(NAN, -HUGE_VAL, HUGE_VAL));  // a range with no ends still refuses it
  CHECK_FALSE(finite_within(HUGE_VAL, 0.0, HUGE_VAL));
  CHECK_FALSE(finite_within(-HUGE_VAL, -HUGE_VAL, 0.0));
}
