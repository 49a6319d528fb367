// Properties over random schedules: any order that respects the dependencies is accepted,
// simulates with every invariant holding and is timed op by op as the reference timer times it;
// each kind of damage is rejected for its own reason; a planted wait cycle is named.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>

#include "model/dependencies.hpp"
#include "model/structure.hpp"
#include "random_schedule.hpp"
#include "reference_timer.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"
#include "validate/validator.hpp"

using namespace pipeplan;

namespace {

CostModel random_costs(std::mt19937& random, const Schedule& s) {
  std::uniform_real_distribution<double> time(0.1, 2.0);
  CostModel c = test::uniform(s, 1, 1, 1);
  for (StageCost& st : c.stages) {
    Bytes a_f = 100 + static_cast<Bytes>(random() % 900);
    st = StageCost{time(random), time(random), time(random), a_f, a_f / 3};
  }
  for (DeviceCost& d : c.devices) d.static_memory_bytes = static_cast<Bytes>(random() % 1000);
  c.transfer.fixed_ms = time(random) / 4;
  return c;
}

}  // namespace

TEST_CASE("random valid schedules are accepted and simulate with every invariant holding") {
  std::mt19937 random(7);
  int overlapped_ops = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const int p = 1 + static_cast<int>(random() % 4);
    const int v = 1 + static_cast<int>(random() % 2);
    const int m = 1 + static_cast<int>(random() % 5);
    CAPTURE(trial);
    Schedule s = test::random_schedule(random, p, v, m);
    for (const auto& ops : s.order) {
      for (const Op& op : ops) overlapped_ops += op.kind == OpKind::FB ? 1 : 0;
    }
    CostModel c = random_costs(random, s);
    CHECK(validate(s, c, {}).empty());
    SimResult r = simulate(s, c);
    REQUIRE_FALSE(r.deadlocked());
    for (std::size_t d = 0; d < r.devices.size(); ++d) {
      const DeviceTimeline& t = r.devices[d];
      // Each op once, and busy time is exactly the sum of their costs.
      CHECK(t.ops.size() == s.order[d].size());
      SimTime sum = 0;
      for (const Op& op : s.order[d]) {
        const StageCost& sc = c.stages[static_cast<std::size_t>(op.stage)];
        const StageCost& other = c.stages[static_cast<std::size_t>(op.overlap_stage)];
        switch (op.kind) {
          case OpKind::F:
            sum += ms_to_ns(sc.f_ms);
            break;
          case OpKind::B:
            sum += ms_to_ns(sc.b_ms);
            break;
          case OpKind::W:
            sum += ms_to_ns(sc.w_ms);
            break;
          case OpKind::BW:
            sum += ms_to_ns(sc.b_ms + sc.w_ms);
            break;
          case OpKind::FB:
            sum += ms_to_ns(sc.f_ms) + ms_to_ns(other.b_ms + other.w_ms);
            break;  // no f_and_b_ms
        }
      }
      CHECK(t.busy() == sum);
      // Memory comes back to the static baseline.
      CHECK(t.memory.back().bytes == t.static_memory);
    }
  }
  CHECK(overlapped_ops > 20);  // the sweep covers the compound op too
}

TEST_CASE("damaged schedules are rejected for the right reason") {
  std::mt19937 random(11);
  for (int trial = 0; trial < 100; ++trial) {
    const int p = 2 + static_cast<int>(random() % 3);
    const int m = 1 + static_cast<int>(random() % 4);
    CAPTURE(trial);
    Schedule s = test::random_schedule(random, p, 1, m);
    CostModel c = test::uniform(s, 1, 1, 1);
    std::size_t d = random() % s.order.size();
    while (s.order[d].empty()) d = (d + 1) % s.order.size();  // a random placement may leave one empty
    auto& ops = s.order[d];
    const std::size_t i = random() % ops.size();
    auto has = [&](ProblemKind kind) {
      for (const Problem& problem : validate(s, c, {})) {
        if (problem.kind == kind) return true;
      }
      return false;
    };
    switch (trial % 4) {
      case 0:  // drop
        ops.erase(ops.begin() + static_cast<long>(i));
        CHECK(has(ProblemKind::Missing));
        break;
      case 1:  // duplicate
        ops.insert(ops.begin() + static_cast<long>(i), ops[i]);
        CHECK(has(ProblemKind::Repeated));
        break;
      case 2: {  // move to another device
        const Op op = ops[i];
        ops.erase(ops.begin() + static_cast<long>(i));
        s.order[(d + 1) % s.order.size()].push_back(op);
        CHECK(has(ProblemKind::WrongDevice));
        break;
      }
      default: {  // put the device's first op that needs an earlier op of its own device before it
        bool damaged = false;
        for (std::size_t a = 0; a < ops.size() && !damaged; ++a) {
          for (std::size_t b = a + 1; b < ops.size() && !damaged; ++b) {
            for (const Dependency& dep : dependencies_of(ops[b], s.stages)) {
              if (dep.stage == ops[a].stage && dep.microbatch == ops[a].microbatch &&
                  satisfies(ops[a].kind, dep.need)) {
                std::swap(ops[a], ops[b]);
                damaged = true;
                break;
              }
            }
          }
        }
        REQUIRE(damaged);  // a device with a stage holds its F and, apart, the backward that needs it
        CHECK(has(ProblemKind::Misordered));
        CHECK(has(ProblemKind::Deadlock));
      }
    }
  }
}

namespace {

// Costs in whole microseconds, so that a fused BW's t_B + t_W is the same whether rounded once
// or in parts; now and then a stage's FB gets a time of its own.
CostModel microsecond_costs(std::mt19937& random, const Schedule& s) {
  auto ms = [&random](unsigned most_us) { return static_cast<double>(1 + random() % most_us) / 1000.0; };
  CostModel c = test::uniform(s, 1, 1, 1);
  for (StageCost& st : c.stages) {
    st = StageCost{ms(2000), ms(2000), ms(2000), 0, 0};
    if (random() % 4 == 0) st.f_and_b_ms = ms(3000);
  }
  for (DeviceCost& d : c.devices) d.optimizer_ms = random() % 2 == 0 ? 0.0 : ms(1000);
  c.transfer.fixed_ms = random() % 3 == 0 ? 0.0 : ms(500);
  // Every other schedule: a transfer per boundary, some fast, some up to 4 ms (a network hop).
  if (random() % 2 == 0) {
    for (int b = 0; b + 1 < s.stages; ++b)
      c.boundaries.push_back(TransferCost{ms(random() % 4 == 0 ? 4000 : 300), 0, 0, 0});
  }
  return c;
}

}  // namespace

TEST_CASE("simulate times every op as the reference timer does (random schedules, costs, modes)") {
  std::mt19937 random(2026);
  int with_boundaries = 0;
  int forward_input_last = 0;  // FB ops whose forward's input, from a third device, arrives last
  for (int trial = 0; trial < 600; ++trial) {
    const int p = 1 + static_cast<int>(random() % 4);
    const int v = 1 + static_cast<int>(random() % 2);
    const int m = 1 + static_cast<int>(random() % 5);
    const int iterations = 1 + static_cast<int>(random() % 2);
    const OptimizerMode mode = random() % 2 == 0 ? OptimizerMode::Sync : OptimizerMode::PostValidation;
    CAPTURE(trial);
    Schedule s = test::random_schedule(random, p, v, m);
    CostModel c = microsecond_costs(random, s);
    SimResult r = simulate(s, c, {iterations, mode});
    test::ReferenceRun ref = test::reference_times(s, c, iterations, mode);
    REQUIRE_FALSE(r.deadlocked());
    // The lower bound holds for every schedule of this placement, this one included.
    CHECK(r.lower_bound <= r.step_time());
    with_boundaries += c.boundaries.empty() ? 0 : 1;
    for (std::size_t d = 0; d < s.order.size(); ++d) {
      CAPTURE(d);
      const auto& got = r.devices[d].ops;
      REQUIRE(got.size() == ref.ops[d].size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        CAPTURE(describe(got[i].op));
        CHECK(got[i].op == ref.ops[d][i].op);
        CHECK(got[i].iteration == ref.ops[d][i].iteration);
        CHECK(got[i].start == ref.ops[d][i].start);
        CHECK(got[i].end == ref.ops[d][i].end);
      }
    }
    // Count the FB ops that tell the running maximum of the inputs from the last input alone.
    auto end_of = [&](int iteration, OpKind kind, int stage, int mb) {
      for (const auto& list : ref.ops) {
        for (const test::ReferenceOp& o : list) {
          if (o.iteration != iteration) continue;
          if (o.op.kind == kind && o.op.stage == stage && o.op.microbatch == mb) return o.end;
          if (o.op.kind == OpKind::FB && kind == OpKind::F && o.op.stage == stage && o.op.microbatch == mb)
            return o.end;
          if (o.op.kind == OpKind::FB && kind == OpKind::BW && o.op.overlap_stage == stage &&
              o.op.overlap_microbatch == mb) {
            return o.end;
          }
        }
      }
      return SimTime{-1};
    };
    for (std::size_t d = 0; d < ref.ops.size(); ++d) {
      for (std::size_t i = 1; i < ref.ops[d].size(); ++i) {
        const Op& op = ref.ops[d][i].op;
        const int it = ref.ops[d][i].iteration;
        if (op.kind != OpKind::FB || op.stage == 0 || op.overlap_stage + 1 == s.stages) continue;
        const int from_f = s.placement[static_cast<std::size_t>(op.stage - 1)];
        const int from_b = s.placement[static_cast<std::size_t>(op.overlap_stage + 1)];
        if (from_f == static_cast<int>(d) || from_b == static_cast<int>(d) || from_f == from_b) continue;
        const SimTime f_in = end_of(it, OpKind::F, op.stage - 1, op.microbatch);
        const SimTime b_in = std::max(end_of(it, OpKind::B, op.overlap_stage + 1, op.overlap_microbatch),
                                      end_of(it, OpKind::BW, op.overlap_stage + 1, op.overlap_microbatch));
        if (f_in > b_in && f_in + ms_to_ns(c.transfer_ms(op.stage - 1)) > ref.ops[d][i - 1].end) ++forward_input_last;
      }
    }
  }
  CHECK(forward_input_last >= 10);  // 16 with this seed
  CHECK(with_boundaries > 250);     // 273 of the 600 with this seed
}

TEST_CASE("a planted wait cycle is named, whichever device blocks first") {
  std::mt19937 random(20);
  int first_blocked_off_cycle = 0, self_waits = 0;
  for (int trial = 0; trial < 300; ++trial) {
    CAPTURE(trial);
    test::PlantedDeadlock planted = test::random_deadlock(random, 1 + static_cast<int>(random() % 3));
    const Schedule& s = planted.schedule;
    const CostModel c = test::uniform(s, 1, 1, 1);
    // The simulator stops each device where the reference timer does.
    SimResult r = simulate(s, c);
    test::ReferenceRun ref = test::reference_times(s, c, 1, OptimizerMode::Sync);
    std::vector<int> stuck_at(s.order.size(), -1);
    for (const BlockedDevice& b : r.deadlock) stuck_at[static_cast<std::size_t>(b.device)] = static_cast<int>(b.index);
    CHECK(stuck_at == ref.stuck_at);
    // The validator names the planted cycle, and only it.
    std::string expected = "deadlock: devices wait in a cycle: device " + std::to_string(planted.cycle.front());
    for (std::size_t i = 1; i < planted.cycle.size(); ++i) expected += " -> device " + std::to_string(planted.cycle[i]);
    std::vector<std::string> cycles;
    for (const Problem& problem : validate(s, c, {})) {
      if (problem.message.starts_with("deadlock: devices wait in a cycle")) cycles.push_back(problem.message);
    }
    CHECK(cycles == std::vector<std::string>{expected});
    REQUIRE(r.deadlocked());
    const int first = r.deadlock.front().device;
    if (std::find(planted.cycle.begin(), planted.cycle.end(), first) == planted.cycle.end()) ++first_blocked_off_cycle;
    if (planted.self_waiting >= 0) {
      ++self_waits;
      CHECK(stuck_at[static_cast<std::size_t>(planted.self_waiting)] == 0);
    }
  }
  CHECK(first_blocked_off_cycle > 30);
  CHECK(self_waits > 30);
}
