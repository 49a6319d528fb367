#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lower/lowering.hpp"
#include "schedules/generator.hpp"
#include "sim/comm_simulator.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"
#include "validate/deadlock_text.hpp"

using namespace pipeplan;

namespace {

// Every stage F = 1, B = 1, W = 1 ms (a fused BW takes 2), a transfer `transfer` ms.
CostModel unit_costs(const Schedule& s, double transfer) {
  CostModel c = test::uniform(s, 1, 1, 1);
  c.transfer.fixed_ms = transfer;
  return c;
}

double makespan_ms(const Schedule& s, LowerPolicy policy, CommMode mode, double transfer) {
  const CommSimResult r = simulate_with_comm(lower(s, policy), unit_costs(s, transfer), mode);
  REQUIRE_MESSAGE(r.stuck.empty(), describe_cycle(r.result.deadlock_cycle));
  return ns_to_ms(r.result.makespan);
}

// The cells of a Markdown table row, trimmed: "| a | b |" is {"a", "b"}.
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line.substr(1));
  for (std::string cell; std::getline(in, cell, '|');) {
    const std::size_t first = cell.find_first_not_of(' ');
    const std::size_t last = cell.find_last_not_of(' ');
    out.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return out;
}

// The table of docs/schedules.md, "Communication": for each generator the policies marked "yes"
// (a row may name several generators, "zbv, v-half, zbv-auto").
std::map<std::string, std::set<std::string>> documented_policies() {
  const std::string path = std::string(PIPEPLAN_DOCS) + "/schedules.md";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), path);
  std::map<std::string, std::set<std::string>> out;
  std::vector<std::string> policies;
  bool section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ")) section = line == "## Communication";
    if (!section || !line.starts_with("| ")) continue;
    const std::vector<std::string> cells = cells_of(line);
    if (cells.front() == "generator") {
      policies.assign(cells.begin() + 1, cells.end());
      continue;
    }
    REQUIRE_MESSAGE(cells.size() == policies.size() + 1, line);
    std::stringstream names(cells.front());
    for (std::string name; std::getline(names, name, ',');) {
      std::set<std::string>& works = out[name.substr(name.find_first_not_of(' '))];
      for (std::size_t i = 0; i < policies.size(); ++i) {
        if (cells[i + 1] == "yes") works.insert(policies[i]);
      }
    }
  }
  REQUIRE_MESSAGE(!out.empty(), path, " has no Communication table");
  return out;
}

}  // namespace

// 1F1B with P = 2, M = 2, F = 1, BW = 2, transfer 0.5 ms, timed by hand.
// Overlap: device 0 runs F0 [0,1] F1 [1,2]; device 1 F0 [1.5,2.5] BW0 [2.5,4.5] F1 [4.5,5.5]
// BW1 [5.5,7.5]; device 0 BW0 [5,7] once the gradient lands at 5, BW1 [8,10]: 10 ms.
TEST_CASE("1F1B's exchange in each mode and policy, timed by hand") {
  const Schedule s = test::generated("1f1b", 2, 2);
  CHECK(ns_to_ms(simulate(s, unit_costs(s, 0.5)).makespan) == 10.0);
  // Rendezvous, batched: device 0's comm stream sends F0 [1,1.5], then posts SEND_F(s0,m1) with
  // RECV_B(s0,m0) at 1.5; F1's output crosses at [2,2.5], BW0's gradient at [4.5,5]; device 1
  // runs F1 at [4.5,5.5], BW1 [5.5,7.5], its gradient crosses [7.5,8]; device 0 BW0 [5,7],
  // BW1 [8,10]. The comm stream hides the transfers: 10 ms, as overlapped.
  CHECK(makespan_ms(s, LowerPolicy::Batched, CommMode::Rendezvous, 0.5) == 10.0);
  // Rendezvous, Megatron's order: device 1 (odd) posts RECV_F(s1,m1) before SEND_B(s1,m0), so
  // the pairs meet in the same order at both ends; same times, 10 ms.
  CHECK(makespan_ms(s, LowerPolicy::Megatron, CommMode::Rendezvous, 0.5) == 10.0);
  // Blocking, batched: the group of SEND_F(s0,m1) and RECV_B(s0,m0) holds device 0 from 2.5
  // until both cross: device 1 posts its half after BW0, at 4.5, so both transfers run [4.5,5].
  // Device 0 BW0 [5,7], then RECV_B(s0,m1) from 7; device 1 F1 [5,6] BW1 [6,8], sends at 8:
  // [8,8.5]; device 0 BW1 [8.5,10.5].
  CHECK(makespan_ms(s, LowerPolicy::Batched, CommMode::Blocking, 0.5) == 10.5);
  // Blocking, Megatron: device 0 sends F1's output at 2.5, device 1 receives it only after BW0,
  // [4.5,5]; then BW0's gradient [5,5.5]; device 0 BW0 [5.5,7.5]; device 1 F1 [5.5,6.5] BW1
  // [6.5,8.5], its gradient [8.5,9]; device 0 BW1 [9,11].
  CHECK(makespan_ms(s, LowerPolicy::Megatron, CommMode::Blocking, 0.5) == 11.0);
}

TEST_CASE("both ends sending first deadlock under rendezvous, and the cycle is named") {
  // Just-before, not batched: device 0 posts SEND_F(s0,m1) before RECV_B(s0,m0), device 1
  // SEND_B(s1,m0) before RECV_F(s1,m1): each send waits for a receive queued behind the other.
  const Schedule s = test::generated("1f1b", 2, 2);
  for (CommMode mode : {CommMode::Rendezvous, CommMode::Blocking}) {
    const CommSimResult r = simulate_with_comm(lower(s, LowerPolicy::JustBefore), unit_costs(s, 0.5), mode);
    REQUIRE(r.stuck.size() == 2);
    CHECK(r.stuck[0].reason == StuckReason::PeerNotPosted);
    CHECK(r.stuck[0].peer == 1);
    CHECK(
        describe(r.stuck[0]) ==
        "device 0 posted SEND_F(s0,m1) to device 1, which has not posted RECV_F(s1,m1) (its next post: SEND_B(s1,m0))");
    CHECK(
        describe(r.stuck[1]) ==
        "device 1 posted SEND_B(s1,m0) to device 0, which has not posted RECV_B(s0,m0) (its next post: SEND_F(s0,m1))");
    CHECK(r.result.deadlock_cycle == std::vector<int>{0, 1, 0});
    CHECK(describe_cycle(r.result.deadlock_cycle) == "device 0 -> device 1 -> device 0");
    CHECK(r.result.deadlocked());
  }
}

TEST_CASE("transfers of one link run one at a time") {
  // GPipe, P = 2, M = 2, transfer 1.5 ms. Overlapped, F1's output (ready at 2) lands at 3.5 and
  // the step takes 12 ms. Under rendezvous it waits for F0's on the link [1,2.5] and crosses
  // [2.5,4]: device 1 runs F0 [2.5,3.5] F1 [4,5] BW0 [5,7] BW1 [7,9]; the gradients cross
  // [7,8.5] and [9,10.5]; device 0 BW0 [8.5,10.5] BW1 [10.5,12.5].
  const Schedule s = test::generated("gpipe", 2, 2);
  CHECK(ns_to_ms(simulate(s, unit_costs(s, 1.5)).makespan) == 12.0);
  const CommSimResult r = simulate_with_comm(lower(s, LowerPolicy::Batched), unit_costs(s, 1.5), CommMode::Rendezvous);
  CHECK(ns_to_ms(r.result.makespan) == 12.5);
  REQUIRE(r.transfers.size() == 4);
  CHECK(ns_to_ms(r.transfers[1].start) == 2.5);
  CHECK(describe(r.transfers[1].send) == "SEND_F(s0,m1)");
}

TEST_CASE("the transfers come in start order, each link's in its posting order") {
  // ZB-H1, P = 4, M = 8, two iterations: each micro-batch crosses the 3 links forward and the 3
  // back, 6 x 8 x 2 = 96 transfers, merged from the 6 links' lists.
  const Schedule s = test::generated("zbh1", 4, 8);
  const CostModel c = unit_costs(s, 0.3);
  const CommSimResult r =
      simulate_with_comm(lower(s, LowerPolicy::Timed, &c), c, CommMode::Rendezvous, {2, OptimizerMode::PostValidation});
  REQUIRE(r.stuck.empty());
  REQUIRE(r.transfers.size() == 96);
  std::map<std::pair<int, int>, std::vector<const TransferTiming*>> links;
  for (std::size_t i = 0; i < r.transfers.size(); ++i) {
    if (i > 0) CHECK(r.transfers[i - 1].start <= r.transfers[i].start);
    links[{r.transfers[i].from_device, r.transfers[i].to_device}].push_back(&r.transfers[i]);
  }
  CHECK(links.size() == 6);
  for (const auto& [link, list] : links) {
    for (std::size_t i = 1; i < list.size(); ++i) CHECK(list[i - 1]->end <= list[i]->start);  // one at a time
    // Micro-batches cross a link in order within each iteration: the timed lowering posts them so.
    for (std::size_t i = 1; i < list.size(); ++i) {
      if (list[i - 1]->iteration == list[i]->iteration) CHECK(list[i - 1]->send.microbatch < list[i]->send.microbatch);
    }
  }
}

TEST_CASE("steady state and memory under blocking communication") {
  // Two iterations, post-validation: each device's busy time and memory return to the static
  // baseline; blocking can only make the step longer than overlapped.
  const Schedule s = test::generated("zbh1", 4, 8);
  CostModel c = unit_costs(s, 0.25);
  for (StageCost& st : c.stages) {
    st.activation_bytes = 100;
    st.w_activation_bytes = 40;
  }
  SimOptions options;
  options.iterations = 2;
  options.optimizer_mode = OptimizerMode::PostValidation;
  const SimResult overlap = simulate(s, c, options);
  const CommSimResult blocking = simulate_with_comm(lower(s, LowerPolicy::Batched), c, CommMode::Blocking, options);
  REQUIRE(blocking.stuck.empty());
  CHECK(blocking.result.step_time() >= overlap.step_time());
  for (std::size_t d = 0; d < overlap.devices.size(); ++d) {
    CHECK(blocking.result.devices[d].busy() == overlap.devices[d].busy());
    CHECK(blocking.result.devices[d].peak_memory == overlap.devices[d].peak_memory);
  }
}

// Which lowering policies run each generator's schedule (P = 2, 3, 4; M = 2P) without a
// mispairing or a deadlock under rendezvous and under blocking communication: the table in
// docs/schedules.md, "Communication". `timed` is safe by construction; the others are the
// rules runtimes use, safe only for the schedules they were written for.
TEST_CASE("every generator runs under rendezvous with the policies docs/schedules.md names") {
  // The table is read from the document itself, so the two cannot drift apart, and every
  // generator must have a row: a new one that is missing fails here.
  const std::map<std::string, std::set<std::string>> documented = documented_policies();
  for (const Generator& g : generators()) {
    const std::string name(g.name);
    // zb's order depends on the memory limit it is given; the table leaves it out.
    if (g.memory_limit == MemoryLimitUse::Required) {
      CHECK_MESSAGE(documented.count(name) == 0, name);
      continue;
    }
    REQUIRE_MESSAGE(documented.count(name) == 1, name, ": add its row to docs/schedules.md, \"Communication\"");
    const std::set<std::string>& expected = documented.at(name);
    std::set<std::string> works;
    for (LowerPolicy policy : all_policies()) works.insert(std::string(policy_name(policy)));
    for (int p : {2, 3, 4}) {
      const Schedule s = test::generated(name, p, 2 * p);
      for (LowerPolicy policy : all_policies()) {
        const LoweredSchedule l = lower(s, policy);
        bool ok = lowering_problems(l).empty();
        for (CommMode mode : {CommMode::Rendezvous, CommMode::Blocking}) {
          ok = ok && simulate_with_comm(l, unit_costs(s, 0.5), mode).stuck.empty();
        }
        if (!ok) works.erase(std::string(policy_name(policy)));
      }
    }
    CHECK_MESSAGE(works == expected, name);
  }
}

TEST_CASE("the timed lowering never deadlocks, whatever the costs") {
  // Random unequal costs per stage (0.1 to 3 ms) and transfers (0 to 2 ms): the overlapped run
  // orders the transfers, and both modes follow that order without waiting on each other.
  std::uint64_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(seed >> 33) / static_cast<double>(1ULL << 31);
  };
  for (const char* name : {"1f1b", "zbh2", "interleaved", "zbv", "dualpipev", "v-min"}) {
    for (int p : {2, 3, 5}) {
      const Schedule s = test::generated(name, p, 3 * p);
      CostModel c = unit_costs(s, 2 * next());
      for (StageCost& st : c.stages) st = StageCost{0.1 + 2.9 * next(), 0.1 + 2.9 * next(), 0.1 + 2.9 * next(), 0, 0};
      for (CommMode mode : {CommMode::Rendezvous, CommMode::Blocking}) {
        const LoweredSchedule l = lower(s, LowerPolicy::Timed, &c, mode);  // placed for the mode
        REQUIRE(lowering_problems(l).empty());
        const CommSimResult r = simulate_with_comm(l, c, mode);
        CHECK_MESSAGE(r.stuck.empty(), name, " P=", p, " ", comm_mode_name(mode));
        CHECK(r.result.makespan >= simulate(s, c).makespan);
      }
    }
  }
}

TEST_CASE("under blocking the timed lowering keeps the faster placement of its receives") {
  // 1F1B over 4 devices, 8 micro-batches, a transfer 0.05 ms, the first stage lighter (F 1, B 2
  // against 1.2 and 2.4: BLOOM's shape, whose first stage holds the embedding and 5 blocks where
  // the others hold 6). In the overlapped run device 1's second input arrives while its first
  // forward runs. Placed before that forward, as a receive on a stream of its own wants it, it
  // holds device 1's compute stream until then, and so on down the pipeline, which fills one
  // forward at a time: measured here 48.25 ms against Megatron's batched posts' 39.95. Placed at
  // the nearer end of the op, it is not.
  const Schedule s = test::generated("1f1b", 4, 8);
  CostModel c = test::uniform(s, 1.2, 2.4, 0);
  c.stages[0].f_ms = 1;
  c.stages[0].b_ms = 2;
  c.transfer.fixed_ms = 0.05;
  const auto blocking_ms = [&](const LoweredSchedule& l) {
    const CommSimResult r = simulate_with_comm(l, c, CommMode::Blocking);
    REQUIRE(r.stuck.empty());
    return ns_to_ms(r.result.step_time());
  };
  const double batched = blocking_ms(lower(s, LowerPolicy::Batched));
  const double at_arrival = blocking_ms(lower(s, LowerPolicy::Timed, &c, CommMode::Rendezvous));
  const double timed = blocking_ms(lower(s, LowerPolicy::Timed, &c, CommMode::Blocking));
  CHECK(at_arrival > 1.15 * batched);
  CHECK(timed <= 1.01 * batched);
  // Whatever the schedule and costs, never slower than the receives placed at their arrival.
  std::uint64_t seed = 777;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(seed >> 33) / static_cast<double>(1ULL << 31);
  };
  for (const char* name : {"1f1b", "zbh1", "zbh2", "interleaved", "zbv", "v-half", "dualpipev"}) {
    for (int p : {3, 4, 6}) {
      const Schedule g = test::generated(name, p, 2 * p);
      CostModel r = unit_costs(g, next());
      for (StageCost& st : r.stages) st = StageCost{0.5 + 1.5 * next(), 0.5 + 2.5 * next(), 0.2 + 1.3 * next(), 0, 0};
      const CommSimResult before =
          simulate_with_comm(lower(g, LowerPolicy::Timed, &r, CommMode::Rendezvous), r, CommMode::Blocking);
      const CommSimResult after =
          simulate_with_comm(lower(g, LowerPolicy::Timed, &r, CommMode::Blocking), r, CommMode::Blocking);
      REQUIRE(after.stuck.empty());
      CHECK_MESSAGE(after.result.step_time() <= before.result.step_time(), name, " P=", p);
    }
  }
}

// Ops of 0 ns are ordinary (issue 31, item 2): an empty stage or a profile rounded to zero ends
// a whole chain of dependencies at one instant, where the timed lowering once ordered the
// transfers by time alone and deadlocked or paired the wrong tensors. Every generator of the
// registry, generated with those costs (the automatic ones search with them), under every
// policy and both modes with posts: `timed` must pass lowering_problems (no mispairing) and run
// to the end in both modes; every other policy must run with zero costs wherever it runs with
// unit costs, since posting order alone decides whether it deadlocks.
TEST_CASE("zero-time ops: every generator, policy and mode runs as with unit costs") {
  const std::vector<StageCost> zero_costs = {StageCost{0, 0, 0, 0, 0}, StageCost{0, 1, 1, 0, 0},
                                             StageCost{1, 0, 0, 0, 0}, StageCost{1, 1, 0, 0, 0}};
  for (const Generator& g : generators()) {
    for (int p : {2, 3, 4}) {
      for (const StageCost& cost : zero_costs) {
        GenerateRequest r = test::request(p, 4 * p, g.chunks_for(0));
        const CostModel c = uniform_costs(p * r.chunks, p, cost, 0);
        r.costs = &c;
        if (g.memory_limit == MemoryLimitUse::Required) r.memory_limit = {Bytes{1} << 40};
        const Schedule s = g.generate(r);
        const std::string what = std::string(g.name) + " P=" + std::to_string(p) + " costs " +
                                 std::to_string(cost.f_ms) + "," + std::to_string(cost.b_ms) + "," +
                                 std::to_string(cost.w_ms);
        const SimResult overlapped = simulate(s, c);
        REQUIRE_MESSAGE(!overlapped.deadlocked(), what);
        for (LowerPolicy policy : all_policies()) {
          const LoweredSchedule l = lower(s, policy, &c);
          const bool timed = policy == LowerPolicy::Timed;
          const bool problems = !lowering_problems(l).empty();
          CHECK_MESSAGE((!timed || !problems), what, " timed: ", lowering_problems(l).front().message);
          if (problems) continue;
          for (CommMode mode : {CommMode::Rendezvous, CommMode::Blocking}) {
            const bool runs = simulate_with_comm(l, c, mode).stuck.empty();
            const bool runs_unit = simulate_with_comm(l, unit_costs(s, 0.5), mode).stuck.empty();
            CHECK_MESSAGE(runs == (timed || runs_unit), what, " ", policy_name(policy), " ", comm_mode_name(mode));
          }
        }
      }
    }
  }
}
