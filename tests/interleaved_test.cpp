// interleaved: PyTorch's ScheduleInterleaved1F1B by default, Megatron's groups with --group
// (lib/schedules/interleaved.cpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "io/pytorch_csv.hpp"
#include "io/read_file.hpp"
#include "model/placement.hpp"
#include "model/units.hpp"
#include "schedules/generator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

Schedule interleaved(int p, int m, int v, int group = 0) {
  GenerateRequest r = test::request(p, m, v);
  r.group = group;
  return find_generator("interleaved")->generate(r);
}

const std::string kGenerated = std::string(PIPEPLAN_TEST_DATA) + "/pytorch/generated";

}  // namespace

TEST_CASE("interleaved is PyTorch's own order in every generated Interleaved1F1B 4-rank file") {
  // Expected: the files PyTorch's schedules.py wrote itself (tests/data/pytorch/README.md), idle
  // steps dropped by the reader. M = 6 and 10 are PyTorch's "flexible rounds" (one round of 6, two
  // of 5), which Megatron's default group of P = 4 refuses. Every Interleaved1F1B_P4_*.csv there
  // is listed here.
  const int cases[][2] = {{4, 2}, {6, 2}, {8, 2}, {10, 2}, {16, 2}, {4, 3}, {8, 3}, {16, 3}};
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kGenerated)) {
    files += entry.path().filename().string().starts_with("Interleaved1F1B_P4_") ? 1 : 0;
  }
  CHECK(files == static_cast<int>(std::size(cases)));
  for (const auto& [m, v] : cases) {
    const std::string path =
        kGenerated + "/Interleaved1F1B_P4_M" + std::to_string(m) + "_V" + std::to_string(v) + ".csv";
    CAPTURE(path);
    const CsvImport expected = schedule_from_pytorch_csv(read_text_file(path), path, CsvNaming::Current);
    REQUIRE(expected.schedule.devices == 4);
    const Schedule s = interleaved(4, m, v);
    CHECK(s.placement == loop_placement(4, v));
    CHECK(expected.schedule.placement == s.placement);
    CHECK(expected.schedule.microbatches == m);
    for (std::size_t d = 0; d < 4; ++d) {
      CAPTURE(d);
      // A forward and a fused backward per micro-batch and chunk.
      CHECK(expected.schedule.order[d].size() == static_cast<std::size_t>(2 * m * v));
      CHECK(expected.schedule.order[d] == s.order[d]);
    }
  }
}

TEST_CASE("interleaved takes M < P as one round of M micro-batches") {
  // P = 4, M = 2, V = 2: one round of n = 2. Rank 3 warms up with (V-1)*n + 2(P-1-3) = 2
  // forwards (both of chunk 0), then alternates; rank 0's 2 + 6 = 8 exceed M*V = 4, so it runs
  // every forward first. Stage 7 is rank 3's chunk 1.
  const Schedule s = interleaved(4, 2, 2);
  CHECK(s.order[3] == std::vector<Op>{{OpKind::F, 3, 0},
                                      {OpKind::F, 3, 1},
                                      {OpKind::F, 7, 0},
                                      {OpKind::BW, 7, 0},
                                      {OpKind::F, 7, 1},
                                      {OpKind::BW, 7, 1},
                                      {OpKind::BW, 3, 0},
                                      {OpKind::BW, 3, 1}});
  CHECK(s.order[0] == std::vector<Op>{{OpKind::F, 0, 0},
                                      {OpKind::F, 0, 1},
                                      {OpKind::F, 4, 0},
                                      {OpKind::F, 4, 1},
                                      {OpKind::BW, 4, 0},
                                      {OpKind::BW, 4, 1},
                                      {OpKind::BW, 0, 0},
                                      {OpKind::BW, 0, 1}});
}

TEST_CASE("interleaved refuses what PyTorch's rounds refuse, and --group keeps Megatron's rule") {
  // P = 4, M = 9: floor(9/4) = 2 rounds do not split 9; 8 (2 rounds of 4) and 10 (2 of 5) do.
  CHECK(test::error_of([] { (void)interleaved(4, 9, 2); }) ==
        "interleaved: M = 9 micro-batches do not split into 2 equal rounds for P = 4, V = 2: PyTorch's rule needs "
        "M < P or M a multiple of floor(M/P); the nearest that fit are M = 8 and M = 10");
  // Megatron's groups: N = 4 with M = 6 leaves a last group of 2 < P, which it refuses; N = 3 < P
  // likewise; N = 6 is one group of all M, which PyTorch's one round of 6 also is.
  CHECK(test::error_of([] {
          (void)interleaved(4, 6, 2, 4);
        }).starts_with("interleaved: micro-batch group size N = 4 does not fit M = 6: Megatron's rule"));
  CHECK(test::error_of([] { (void)interleaved(4, 6, 2, 3); }).starts_with("interleaved: micro-batch group size N = 3"));
  CHECK(interleaved(4, 6, 2, 6).order == interleaved(4, 6, 2).order);
  // P = 4, M = 9, N = 5: Megatron's groups of 5 and 4 (4 >= P), where PyTorch has no rounds. Rank 3
  // warms up with (V-1)*N = 5 forwards, all of chunk 0's first group.
  const Schedule g = interleaved(4, 9, 2, 5);
  const std::vector<Op> expected_warmup = {
      {OpKind::F, 3, 0}, {OpKind::F, 3, 1}, {OpKind::F, 3, 2}, {OpKind::F, 3, 3}, {OpKind::F, 3, 4}};
  CHECK(std::vector<Op>(g.order[3].begin(), g.order[3].begin() + 5) == expected_warmup);
  CHECK(g.order[3][5] == Op{OpKind::F, 7, 0});
  CHECK(g.order[3][6] == Op{OpKind::BW, 7, 0});
}
