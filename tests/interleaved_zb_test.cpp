// interleaved-zb, PyTorch's ScheduleInterleavedZeroBubble (lib/schedules/interleaved_zero_bubble.cpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "io/json_text.hpp"
#include "io/pytorch_csv.hpp"
#include "model/placement.hpp"
#include "model/structure.hpp"
#include "model/units.hpp"
#include "schedules/generator.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

Schedule izb(int p, int m, int v) {
  return find_generator("interleaved-zb")->generate(test::request(p, m, v));
}

const std::string kGenerated = std::string(PIPEPLAN_TEST_DATA) + "/pytorch/generated";

}  // namespace

TEST_CASE("interleaved-zb is PyTorch's own order in every generated 4-rank file") {
  // Expected: the files PyTorch's schedules.py wrote itself (tests/data/pytorch/README.md). They
  // carry idle steps as empty cells, which the reader drops: what is compared is each device's
  // op order. Every InterleavedZeroBubble_P4_*.csv there is listed here.
  const int cases[][2] = {{4, 1}, {8, 1}, {16, 1}, {4, 2}, {8, 2}, {10, 2}, {16, 2}, {4, 3}, {8, 3}, {16, 3}};
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kGenerated)) {
    files += entry.path().filename().string().starts_with("InterleavedZeroBubble_P4_") ? 1 : 0;
  }
  CHECK(files == static_cast<int>(std::size(cases)));
  for (const auto& [m, v] : cases) {
    const std::string path =
        kGenerated + "/InterleavedZeroBubble_P4_M" + std::to_string(m) + "_V" + std::to_string(v) + ".csv";
    CAPTURE(path);
    const CsvImport expected = schedule_from_pytorch_csv(read_text_file(path), path, CsvNaming::Current);
    REQUIRE(expected.schedule.devices == 4);
    const Schedule s = izb(4, m, v);
    CHECK(s.placement == loop_placement(4, v));
    CHECK(expected.schedule.placement == s.placement);
    CHECK(expected.schedule.microbatches == m);
    for (std::size_t d = 0; d < 4; ++d) {
      CAPTURE(d);
      CHECK(expected.schedule.order[d].size() == static_cast<std::size_t>(3 * m * v));
      CHECK(expected.schedule.order[d] == s.order[d]);
    }
  }
}

TEST_CASE("interleaved-zb is PyTorch's older ZB1P test artifact for 2 ranks, 2 stages each") {
  // Expected: PyTorch's own test file (test/distributed/pipelining/artifacts/, tests/data/pytorch/
  // README.md), from before the commit above and in the legacy naming (B for the input gradient):
  // P = 2, V = 2, M = 8, a second rank count and a second PyTorch version.
  const std::string path = std::string(PIPEPLAN_TEST_DATA) + "/pytorch/zb1p_2rank_2stagep_compute_legacy.csv";
  const CsvImport expected = schedule_from_pytorch_csv(read_text_file(path), path, CsvNaming::Legacy);
  const Schedule s = izb(2, 8, 2);
  CHECK(expected.schedule.placement == s.placement);
  CHECK(expected.schedule.order == s.order);
  CHECK(s.op_count() == 2 * 2 * 8 * 3);
}

TEST_CASE("interleaved-zb with one chunk is ZB-H1") {
  // PyTorch's rule with V = 1: P-1-d warm-up forwards and W trailing B by d, which is ZB-H1's
  // (Qi et al. 2024, section 3) as our zbh1 generator builds it; M < P included.
  for (int p = 1; p <= 8; ++p) {
    for (int m = 1; m <= 3 * p + 2; ++m) {
      CAPTURE(p);
      CAPTURE(m);
      Schedule zbh1 = test::generated("zbh1", p, m);
      Schedule s;
      try {
        s = izb(p, m, 1);
      } catch (const std::exception&) {
        // PyTorch's round rule; the refusal test below covers it.
        CHECK((m >= p && m % (m / p) != 0));
        continue;
      }
      CHECK(s.placement == zbh1.placement);
      CHECK(s.order == zbh1.order);
    }
  }
}

TEST_CASE("interleaved-zb over a sweep of P, M and V: every op once, on its device, no deadlock") {
  // Expected from the model alone: F, B and W of each of the P*V stages for each micro-batch,
  // each once on the device of its stage (find_structure_problems), and an order the simulator
  // runs to the end (PyTorch itself refuses an order its send/recv lowering cannot run).
  int built = 0;
  for (int p = 1; p <= 8; ++p) {
    for (int v : {1, 2, 3, 4, 7}) {
      for (int m = 1; m <= 3 * p + 2; ++m) {
        CAPTURE(p);
        CAPTURE(m);
        CAPTURE(v);
        Schedule s;
        try {
          s = izb(p, m, v);
        } catch (const std::exception&) {
          continue;  // the round rule, checked below
        }
        ++built;
        CHECK(s.stages == p * v);
        CHECK(s.op_count() == static_cast<std::size_t>(3 * p * v * m));
        for (const Problem& problem : find_structure_problems(s)) FAIL_CHECK(problem.message);
        const SimResult r = simulate(s, test::uniform(s, 1, 1.2, 0.8));
        CHECK(!r.deadlocked());
      }
    }
  }
  CHECK(built == 475);  // 620 requests less the 145 that the round rule refuses
}

TEST_CASE("interleaved-zb refuses what PyTorch refuses, naming P, M, V and what fits") {
  // PyTorch's constructor: rounds = max(1, M // P), and "Zero bubble requires the number of
  // microbatches to be a multiple of the number of rounds" otherwise. P = 4: M = 9 and 11 have
  // 2 rounds, M = 13 and 14 have 3, so 15 is the next that fits; M = 10 (a generated file above),
  // 5, 6, 7 (one round) and 3 (M < P) are taken.
  auto message = [](int p, int m, int v) { return test::error_of([&] { (void)izb(p, m, v); }); };
  CHECK(message(4, 9, 2) ==
        "interleaved-zb: M = 9 micro-batches do not split into 2 equal rounds for P = 4, V = 2: PyTorch's rule "
        "needs M < P or M a multiple of floor(M/P); the nearest that fit are M = 8 and M = 10");
  CHECK(message(4, 11, 1).find("do not split into 2 equal rounds") != std::string::npos);
  CHECK(message(4, 13, 3).find("the nearest that fit are M = 12 and M = 15") != std::string::npos);
  for (int m : {3, 5, 6, 7, 10, 12}) CHECK(message(4, m, 2).empty());
  CHECK(message(4, 8, 65) == "interleaved-zb: runs 1 to 64 chunks per device, got 65");
  CHECK(message(0, 8, 2).find("needs 1 to") != std::string::npos);
}

TEST_CASE("interleaved-zb takes ZB-H1's makespan with the bubble cut by V (F = B = W)") {
  // Every stage F = B = W = 1 ms, no transfer: a device works 3·M·V ms, and the bubble is
  // ZB-H1's (P-1)(F+B-W) of one stage (Qi et al. 2024, section 3), which with V chunks is 1/V
  // of a device's share: makespan 3·M·V + P-1, or M(F+B+W) + (P-1)(F+B-W)/V in full-stage units.
  for (int p = 1; p <= 6; ++p) {
    for (int v = 1; v <= 4; ++v) {
      for (int m = p; m <= 3 * p + 2; ++m) {
        if (m % (m / p) != 0) continue;  // refused
        CAPTURE(p);
        CAPTURE(m);
        CAPTURE(v);
        const Schedule s = izb(p, m, v);
        CHECK(simulate(s, test::uniform(s, 1, 1, 1)).makespan == ms_to_ns(3.0 * m * v + p - 1));
      }
    }
  }
}
