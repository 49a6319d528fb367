// Properties over random schedules: any order that respects the dependencies is accepted and
// simulates with every invariant holding; each kind of damage is rejected for its own reason.
#include <doctest/doctest.h>

#include <random>

#include "model/dependencies.hpp"
#include "model/placement.hpp"
#include "model/structure.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"
#include "validate/validator.hpp"

using namespace pipeplan;

namespace {

// A random valid schedule: each (stage, micro-batch) gets a fused or split backward at random,
// and ops are handed out in a random order in which every op comes after what it needs, so no
// device can wait on another in a cycle; a forward and a fused backward ready together on one
// device sometimes become one overlapped FB op.
Schedule random_schedule(std::mt19937& random, int p, int v, int m) {
  Schedule s;
  s.name = "random";
  s.devices = p;
  s.stages = p * v;
  s.microbatches = m;
  s.placement = v == 2 && random() % 2 == 0 ? vee_placement(p) : loop_placement(p, v);
  s.order.resize(static_cast<std::size_t>(p));
  std::vector<Op> pending;
  for (int st = 0; st < s.stages; ++st) {
    for (int mb = 0; mb < m; ++mb) {
      pending.push_back({OpKind::F, st, mb});
      if (random() % 2 == 0) {
        pending.push_back({OpKind::BW, st, mb});
      } else {
        pending.push_back({OpKind::B, st, mb});
        pending.push_back({OpKind::W, st, mb});
      }
    }
  }
  std::vector<Op> done;
  auto is_done = [&](const Dependency& dep) {
    for (const Op& op : done) {
      if (op.stage == dep.stage && op.microbatch == dep.microbatch && satisfies(op.kind, dep.need)) return true;
    }
    return false;
  };
  while (!pending.empty()) {
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      bool ok = true;
      for (const Dependency& dep : dependencies_of(pending[i], s.stages)) ok = ok && is_done(dep);
      if (ok) ready.push_back(i);
    }
    std::size_t pick = ready[random() % ready.size()];
    const Op op = pending[pick];
    const int device = s.placement[static_cast<std::size_t>(op.stage)];
    // Now and then a ready forward runs overlapped with a ready fused backward of its device.
    std::size_t partner = pending.size();
    if (op.kind == OpKind::F && random() % 2 == 0) {
      for (std::size_t i : ready) {
        const Op& other = pending[i];
        if (other.kind == OpKind::BW && s.placement[static_cast<std::size_t>(other.stage)] == device) partner = i;
      }
    }
    if (partner < pending.size()) {
      const Op backward = pending[partner];
      s.order[static_cast<std::size_t>(device)].push_back(
          overlapped(op.stage, op.microbatch, backward.stage, backward.microbatch));
      done.push_back(op);
      done.push_back(backward);
      pending.erase(pending.begin() + static_cast<long>(std::max(pick, partner)));
      pending.erase(pending.begin() + static_cast<long>(std::min(pick, partner)));
      continue;
    }
    s.order[static_cast<std::size_t>(device)].push_back(op);
    done.push_back(op);
    pending.erase(pending.begin() + static_cast<long>(pick));
  }
  return s;
}

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
    Schedule s = random_schedule(random, p, v, m);
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
          case OpKind::F: sum += ms_to_ns(sc.f_ms); break;
          case OpKind::B: sum += ms_to_ns(sc.b_ms); break;
          case OpKind::W: sum += ms_to_ns(sc.w_ms); break;
          case OpKind::BW: sum += ms_to_ns(sc.b_ms + sc.w_ms); break;
          case OpKind::FB: sum += ms_to_ns(sc.f_ms) + ms_to_ns(other.b_ms + other.w_ms); break;  // no f_and_b_ms
        }
      }
      CHECK(t.busy() == sum);
      // Memory comes back to the static baseline.
      CHECK(t.memory.back().bytes == t.static_memory);
    }
    // The same input gives the same run.
    SimResult again = simulate(s, c);
    CHECK(again.makespan == r.makespan);
    CHECK(test::all_ops(again).size() == test::all_ops(r).size());
  }
  CHECK(overlapped_ops > 20);  // the sweep covers the compound op too
}

TEST_CASE("damaged schedules are rejected for the right reason") {
  std::mt19937 random(11);
  for (int trial = 0; trial < 100; ++trial) {
    const int p = 2 + static_cast<int>(random() % 3);
    const int m = 1 + static_cast<int>(random() % 4);
    CAPTURE(trial);
    Schedule s = random_schedule(random, p, 1, m);
    CostModel c = test::uniform(s, 1, 1, 1);
    const std::size_t d = random() % s.order.size();
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
              if (dep.stage == ops[a].stage && dep.microbatch == ops[a].microbatch && satisfies(ops[a].kind, dep.need)) {
                std::swap(ops[a], ops[b]);
                damaged = true;
                break;
              }
            }
          }
        }
        REQUIRE(damaged);  // every device holds at least an F and the backward that needs it
        CHECK(has(ProblemKind::Misordered));
        CHECK(has(ProblemKind::Deadlock));
      }
    }
  }
}
