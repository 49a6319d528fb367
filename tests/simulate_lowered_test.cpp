#include <doctest/doctest.h>

#include "lower/simulate_lowered.hpp"
#include "model/error.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

CostModel costs_for(const Schedule& s) {
  CostModel c = test::uniform(s, 1, 2, 1);
  c.transfer.fixed_ms = 0.5;
  return c;
}

}  // namespace

TEST_CASE("simulate_lowered under overlap is simulate(), with no lowering") {
  const Schedule s = test::generated("zbh1", 4, 8);
  const CostModel c = costs_for(s);
  const LoweredRun run = simulate_lowered({s, "", {}}, c, {});
  CHECK(run.run.result.makespan == simulate(s, c).makespan);
  CHECK(run.lowering.actions.empty());
  CHECK(run.run.transfers.empty());
  CHECK_THROWS_AS((void)simulate_lowered({s, "", {}}, c, {CommMode::Overlap, LowerPolicy::Batched, {}}), Error);
}

TEST_CASE("simulate_lowered lowers a plain schedule once and returns the lowering it ran") {
  const Schedule s = test::generated("1f1b", 4, 8);
  const CostModel c = costs_for(s);
  const LoweredRun timed = simulate_lowered({s, "", {}}, c, {CommMode::Rendezvous, std::nullopt, {}});
  CHECK(timed.mode == CommMode::Rendezvous);
  CHECK(!timed.from_file);
  CHECK(timed.lowering.policy == "timed");  // the default policy
  const LoweredSchedule expected = lower(s, LowerPolicy::Timed, &c);
  CHECK(timed.lowering.actions.size() == expected.actions.size());
  CHECK(timed.run.result.makespan == simulate_with_comm(expected, c, CommMode::Rendezvous).result.makespan);
  CHECK(!timed.run.transfers.empty());

  const LoweredRun batched = simulate_lowered({s, "", {}}, c, {CommMode::Blocking, LowerPolicy::Batched, {}});
  CHECK(batched.lowering.policy == "batched");
  CHECK(batched.run.result.makespan ==
        simulate_with_comm(lower(s, LowerPolicy::Batched), c, CommMode::Blocking).result.makespan);
}

TEST_CASE("simulate_lowered runs a file's own posts and refuses a policy for them") {
  const Schedule s = test::generated("1f1b", 2, 4);
  const CostModel c = costs_for(s);
  LoweredSchedule file = lower(s, LowerPolicy::Early);
  file.policy = "";  // as read from a file that does not say
  const LoweredRun run = simulate_lowered(file, c, {CommMode::Blocking, std::nullopt, {}});
  CHECK(run.from_file);
  CHECK(run.lowering.policy.empty());
  CHECK(run.run.result.makespan ==
        simulate_with_comm(lower(s, LowerPolicy::Early), c, CommMode::Blocking).result.makespan);
  CHECK_THROWS_AS((void)simulate_lowered(file, c, {CommMode::Blocking, LowerPolicy::Timed, {}}), Error);
}

TEST_CASE("a deadlock comes back as records, not an error") {
  // Just-before on 1F1B with two devices: each end sends first (comm_simulator_test).
  const Schedule s = test::generated("1f1b", 2, 2);
  const LoweredRun run =
      simulate_lowered({s, "", {}}, costs_for(s), {CommMode::Rendezvous, LowerPolicy::JustBefore, {}});
  REQUIRE(run.run.stuck.size() == 2);
  CHECK(run.run.stuck[0].device == 0);
  CHECK(run.run.stuck[0].reason == StuckReason::PeerNotPosted);
  REQUIRE(run.run.stuck[0].post.has_value());
  CHECK(run.run.stuck[0].post->comm == CommOp{CommKind::SendF, 0, 1});
  REQUIRE(run.run.stuck[0].peer_next.has_value());
  CHECK(run.run.stuck[0].peer_next->comm == CommOp{CommKind::SendB, 1, 0});
  CHECK(run.run.result.deadlock_cycle == std::vector<int>{0, 1, 0});
}
