#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>

#include "calibrate/message_size.hpp"
#include "calibrate/replay_comparison.hpp"
#include "calibrate/replay_plan.hpp"
#include "lower/lowering.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// 1F1B on two ranks, two micro-batches; stage 0 F = B = W = 1 ms, stage 1 (the head's) F = B = 2,
// W = 1; transfers free.
struct TwoRanks {
  Schedule s = test::generated("1f1b", 2, 2);
  CostModel c = [this] {
    CostModel costs = test::uniform(s, 1, 1, 1);
    costs.stages.back().f_ms = 2;
    costs.stages.back().b_ms = 2;
    return costs;
  }();
};

}  // namespace

TEST_CASE("replay predicts with the blocking mode it runs, not with the overlap of simulate()") {
  const TwoRanks t;
  const ReplayPlan plan = plan_replay(t.s, t.c);
  CHECK(plan.mode == CommMode::Blocking);
  CHECK(plan.lowered.policy == "timed");
  // Overlap: rank 0 F0 [0,1] F1 [1,2]; rank 1 F0 [1,3] BW0 [3,6] F1 [6,8] BW1 [8,11]; rank 0
  // BW0 [6,8] BW1 [11,13]: 13 ms.
  CHECK(simulate(t.s, t.c).makespan == ms_to_ns(13));
  // The timed lowering posts rank 1's two receives as one group before its F0 (both arrive
  // before F0 would end in the overlap timing); on the compute stream the group holds F0 until
  // F1's data comes at 2: F0 [2,4] BW0 [4,7] F1 [7,9] BW1 [9,12], rank 0's BW1 [12,14].
  REQUIRE(!plan.program.ranks[1].front().compute);
  CHECK(plan.program.ranks[1].front().group.size() == 2);
  CHECK(plan.predicted.makespan == ms_to_ns(14));
  CHECK(plan.predicted.devices[1].ops.front().start == ms_to_ns(2));
  // The program replay runs is the one of the lowering it predicts with.
  CHECK(plan.program.ranks.size() == replay_program(plan.lowered).ranks.size());
}

TEST_CASE("the measured timeline and its comparison with the prediction") {
  const TwoRanks t;
  const ReplayPlan plan = plan_replay(t.s, t.c);
  // Measured: every op of the prediction 10% longer, starts scaled alike (a uniformly slower card).
  std::vector<std::vector<MeasuredOp>> times(2);
  for (std::size_t d = 0; d < 2; ++d) {
    for (const OpTiming& o : plan.predicted.devices[d].ops) times[d].push_back({o.start * 11 / 10, o.end * 11 / 10});
  }
  const SimResult measured = measured_result(plan.program, times);
  CHECK(measured.makespan == ms_to_ns(14) * 11 / 10);
  CHECK(measured.devices[1].busy() == ms_to_ns(10) * 11 / 10);  // rank 1: 2 + 3 + 2 + 3
  ReplayComparison c = compare_replay(plan.predicted, measured, 0.06);
  CHECK(c.predicted_ms == doctest::Approx(14));
  CHECK(c.measured_ms == doctest::Approx(15.4));
  CHECK(c.error_percent == doctest::Approx(100.0 * (14 - 15.4) / 15.4));
  // Rank 0 is busy 1 + 1 + 2 + 2 = 6 of 14 ms: 57% idle, the same share measured.
  CHECK(c.predicted_bubble[0] == doctest::Approx(8.0 / 14));
  CHECK(c.measured_bubble[0] == doctest::Approx(8.0 / 14));
  // The first start to part by more than 6% of 14 ms (0.84 ms): rank 0's BW1, predicted at 12,
  // measured at 13.2 (rank 0's earlier starts 0, 1, 7 move by 0, 0.1, 0.7, none beyond).
  REQUIRE(c.first_parted);
  CHECK(c.first_parted->device == 0);
  CHECK(c.first_parted->index == 3);
  CHECK(c.first_parted->measured_start == ms_to_ns(12) * 11 / 10);
  c = compare_replay(plan.predicted, measured, 0.10);  // 1.4 ms: rank 1's 9 -> 9.9 is inside too
  CHECK(!c.first_parted);
  times[0].pop_back();
  CHECK(test::error_of([&] { (void)measured_result(plan.program, times); }) ==
        "rank 0: fewer measured ops than compute steps");
}

TEST_CASE("one rank's failure aborts the transport and is the error replay reports") {
  // 1F1B on four ranks; rank 2's third compute op fails like a kernel would. The transport waits
  // as NCCL does (no deadlock detection): without the abort rank 1 and rank 3 would wait for
  // rank 2's posts until the hang limit.
  const Schedule s = test::generated("1f1b", 4, 8);
  const ReplayProgram program = replay_program(s, test::uniform(s, 1, 1, 1));
  FakeTransport transport(4, false, std::chrono::seconds(20));
  std::atomic<int> rank2_ops{0};
  const auto compute = [&](int rank, const Op&) {
    if (rank == 2 && ++rank2_ops == 3) throw std::runtime_error("cublasGemmEx failed");
  };
  CHECK(test::error_of([&] { run_replay(program, transport, nullptr, compute); }) == "cublasGemmEx failed");
  CHECK(!transport.hung());
}

TEST_CASE("replay sizes its messages from the model when the profile gives no size") {
  // Llama-2-7B's hidden 4096, seq 2048, micro-batch 1, bf16: 2048 x 4096 x 2 = 16 MiB; tp 2
  // halves it.
  CalibratedProfile cal;
  cal.model.hidden = 4096;
  cal.training.seq = 2048;
  cal.training.micro_batch = 1;
  cal.training.dtype = DType::BF16;
  TransferCost none;
  none.fixed_ms = 0.0;  // what a profile without "transfer" reads as
  CHECK(replay_message_bytes(none, cal) == 16 * 1048576);
  TransferCost fixed;
  fixed.fixed_ms = 0.2;  // a measured time: no size in it
  CHECK(replay_message_bytes(fixed, cal) == 16 * 1048576);
  TransferCost line{std::nullopt, 0.01, 25.0, 1000};
  CHECK(replay_message_bytes(line, cal) == 1000);  // the profile's own size wins
  // Per-boundary transfers: replay sends one size, the largest a boundary gives (the activation is
  // the same hidden state at every boundary); boundaries with a time only fall back as above.
  CostModel costs;
  costs.transfer = none;
  costs.boundaries = {fixed, line, TransferCost{std::nullopt, 0.5, 12.5, 4000}};
  CHECK(replay_message_bytes(costs, cal) == 4000);
  costs.boundaries = {fixed, fixed};
  CHECK(replay_message_bytes(costs, cal) == 16 * 1048576);
  costs.boundaries.clear();
  costs.transfer = line;
  CHECK(replay_message_bytes(costs, cal) == 1000);
  cal.training.tp = 2;
  cal.training.dtype = DType::FP32;
  CHECK(activation_message_bytes(cal.model, cal.training) == 16 * 1048576);  // 4 bytes / 2 ranks
}
