// Exact timings and memory peaks. Each expected number is derived in the comment above it, from
// the schedules' rules in docs/schedules.md or step by step by hand.
#include <doctest/doctest.h>

#include <string_view>

#include "model/error.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

using namespace pipeplan;
using pipeplan::test::generated;
using pipeplan::test::uniform;

namespace {

constexpr double kF = 1.5, kB = 2.0, kW = 0.75;  // W <= min(F, B), as the ZB-H1 formula needs

SimTime ns(double ms) {
  return ms_to_ns(ms);
}

const OpTiming& timing(const SimResult& r, OpKind kind, int stage, int microbatch) {
  for (const DeviceTimeline& d : r.devices) {
    for (const OpTiming& t : d.ops) {
      if (t.op == Op{kind, stage, microbatch}) return t;
    }
  }
  FAIL("no such op");
  return r.devices.front().ops.front();
}

}  // namespace

TEST_CASE("GPipe, 1F1B and eager 1F1B take (M + P - 1)(F + B + W)") {
  // With every stage alike and no transfer, the last micro-batch's forward leaves device 0 at
  // M*F, crosses P-1 stages, and its backward returns across P stages; the classic count is
  // (M + P - 1) slots of F + B + W on the critical path (Huang et al. 2019; Narayanan et al. 2021).
  // Eager 1F1B's extra warm-up forwards only move work earlier (schedules.md's table), for its
  // M >= 2P - 1.
  for (const char* name : {"gpipe", "1f1b", "eager-1f1b"}) {
    for (int p = 1; p <= 6; ++p) {
      for (int m = std::string_view(name) == "eager-1f1b" ? 2 * p - 1 : p; m <= 3 * p; ++m) {
        CAPTURE(name);
        CAPTURE(p);
        CAPTURE(m);
        Schedule s = generated(name, p, m);
        SimResult r = simulate(s, uniform(s, kF, kB, kW));
        CHECK(r.makespan == (m + p - 1) * ns(kF + kB + kW));
      }
    }
  }
}

TEST_CASE("ZB-H1 takes M(F + B + W) + (P - 1)(F + B - W) when W <= min(F, B)") {
  // Qi et al. 2024, section 3 (schedules.md): splitting the backward lets the previous stage
  // start after B alone, and the W each device holds back fill the cool-down, so 1F1B's bubble
  // (P-1)(F+B+W) becomes (P-1)(F+B-W).
  for (int p = 1; p <= 6; ++p) {
    for (int m = p; m <= 3 * p; ++m) {
      CAPTURE(p);
      CAPTURE(m);
      Schedule s = generated("zbh1", p, m);
      SimResult r = simulate(s, uniform(s, kF, kB, kW));
      CHECK(r.makespan == m * ns(kF + kB + kW) + (p - 1) * ns(kF + kB - kW));
    }
  }
}

TEST_CASE("ZB-H2 with M >= 2P - 1 and F = B = W keeps every device busy from its first op to its last") {
  for (int p = 1; p <= 6; ++p) {
    for (int m = 2 * p - 1; m <= 3 * p + 1; ++m) {
      CAPTURE(p);
      CAPTURE(m);
      Schedule s = generated("zbh2", p, m);
      SimResult r = simulate(s, uniform(s, 1.0, 1.0, 1.0));
      for (const DeviceTimeline& t : r.devices) CHECK(t.last_end() - t.first_start() == t.busy());
      // Device d starts d forwards late (schedules.md): the makespan is 3M + (P-1) units.
      CHECK(r.makespan == ns(3.0 * m + (p - 1)));
    }
  }
}

TEST_CASE("interleaved 1F1B and looped BFS cut 1F1B's bubble by the chunk count") {
  // With V chunks per device each chunk costs 1/V of a stage, and the fill and drain of the
  // pipeline take (P-1)(F+B+W)/V instead of (P-1)(F+B+W) (Narayanan et al. 2021, section 2.2),
  // when M is a multiple of P: makespan M(F+B+W) + (P-1)(F+B+W)/V.
  for (const char* name : {"interleaved", "looped-bfs"}) {
    for (int p = 2; p <= 4; ++p) {
      for (int v = 2; v <= 3; ++v) {
        for (int m = p; m <= 3 * p; m += p) {
          CAPTURE(name);
          CAPTURE(p);
          CAPTURE(v);
          CAPTURE(m);
          Schedule s = find_generator(name)->generate(test::request(p, m, v));
          // Each chunk: F = 1.5/v, B = 2/v, W = 0.75/v ms.
          SimResult r = simulate(s, test::uniform(s, kF / v, kB / v, kW / v));
          CHECK(r.makespan ==
                m * v * (ns(kF / v) + ns(kB / v) + ns(kW / v)) + (p - 1) * (ns(kF / v) + ns(kB / v) + ns(kW / v)));
        }
      }
    }
  }
}

TEST_CASE("ZB-V with M >= 2P - 1 and F = B = W keeps every device busy from its first op to its last") {
  // Device r starts r chunk-forwards late, so the makespan is 3M + (P-1)/2 full-stage units
  // (chunk ops take half a unit).
  for (int p = 1; p <= 6; ++p) {
    for (int m = 2 * p - 1; m <= 3 * p + 1; ++m) {
      CAPTURE(p);
      CAPTURE(m);
      Schedule s = generated("zbv", p, m);
      SimResult r = simulate(s, uniform(s, 0.5, 0.5, 0.5));
      for (const DeviceTimeline& t : r.devices) CHECK(t.last_end() - t.first_start() == t.busy());
      CHECK(r.makespan == ns(3.0 * m + 0.5 * (p - 1)));
    }
  }
}

TEST_CASE("DualPipeV with F = B = W and the default FB cost: makespan 3M + (P-1), peak P + 1/2 stages") {
  // Chunk ops take half a full-stage unit, an FB the sum of its parts (no gain from overlapping).
  // docs/schedules.md states both forms; they were measured, then checked here over the sweep:
  // the makespan is ZB-V's 3M + (P-1)/2 plus another (P-1)/2, and each device holds 2P + 1 chunk
  // activations at its peak, one more than ZB-V's 2P.
  const Bytes a_f = 1000;  // per chunk: half a stage's
  for (int p = 1; p <= 6; ++p) {
    for (int m = 2 * p; m <= 3 * p + 1; ++m) {
      CAPTURE(p);
      CAPTURE(m);
      Schedule s = generated("dualpipev", p, m);
      SimResult r = simulate(s, uniform(s, 0.5, 0.5, 0.5, a_f, 0));
      CHECK(r.makespan == ns(3.0 * m + (p - 1)));
      for (const DeviceTimeline& t : r.devices) CHECK(t.peak_memory == (2 * p + 1) * a_f);
    }
  }
}

TEST_CASE("activation peaks follow the schedules' formulas") {
  // a_F = 1000 bytes, a_W = 250. 1F1B's device d holds min(P-d, M) activations at once, GPipe's
  // all M; ZB-H1's device d additionally keeps d micro-batches' a_W for its held-back W
  // ((P-d) a_F + d a_W); ZB-H2's (2P-1-2d) a_F + 2d a_W (schedules.md).
  const Bytes a_f = 1000, a_w = 250;
  for (int p = 1; p <= 6; ++p) {
    for (int m = 2 * p - 1; m <= 3 * p; ++m) {
      CAPTURE(p);
      CAPTURE(m);
      auto peaks = [&](const char* name) {
        Schedule s = generated(name, p, m);
        return simulate(s, uniform(s, 1.0, 1.0, 1.0, a_f, a_w)).devices;
      };
      auto gpipe = peaks("gpipe"), one_f_one_b = peaks("1f1b"), zbh1 = peaks("zbh1"), zbh2 = peaks("zbh2");
      // ZB-V's chunk holds half a stage: a_F/2 and a_W/2 per chunk; P full activations per device.
      Schedule v = generated("zbv", p, m);
      auto zbv = simulate(v, uniform(v, 1.0, 1.0, 1.0, a_f / 2, a_w / 2)).devices;
      // V-Half holds floor((P+2)/2) full-stage activations per device, V-Min at most floor((P+4)/3)
      // (Qi et al., NeurIPS 2024; schedules.md), counted between F and B (a_W = 0 here).
      Schedule vh = generated("v-half", p, m), vm = generated("v-min", p, m);
      auto half = simulate(vh, uniform(vh, 1.0, 1.0, 1.0, a_f / 2, 0)).devices;
      auto third = simulate(vm, uniform(vm, 1.0, 1.0, 1.0, a_f / 2, 0)).devices;
      // Eager 1F1B keeps 2(P-d)-1 forwards in flight.
      auto eager = peaks("eager-1f1b");
      for (int d = 0; d < p; ++d) {
        CAPTURE(d);
        std::size_t i = static_cast<std::size_t>(d);
        CHECK(zbv[i].peak_memory == p * a_f);
        CHECK(half[i].peak_memory == (p + 2) / 2 * a_f);
        CHECK(third[i].peak_memory <= (p + 4) / 3 * a_f);
        CHECK(eager[i].peak_memory == (2 * (p - d) - 1) * a_f);
        CHECK(gpipe[i].peak_memory == m * a_f);
        CHECK(one_f_one_b[i].peak_memory == std::min(p - d, m) * a_f);
        CHECK(zbh1[i].peak_memory == (p - d) * a_f + d * a_w);
        CHECK(zbh2[i].peak_memory == (2 * p - 1 - 2 * d) * a_f + 2 * d * a_w);
      }
    }
  }
}

TEST_CASE("ZB-H1's held-back W raise the later devices' peaks over 1F1B's, as the seed measured") {
  // The model: device d holds back d weight gradients, so ZB-H1 adds d * a_W to 1F1B's peak
  // (the closed forms (P-d) a_F + d a_W and (P-d) a_F). The seed (seed-paddle-zbh1.md) saw its
  // ranks grow with the index too, +316, +830, +1344, +2791 MB (rank 3 from its own columns:
  // 10597.38 - 7806.72 = 2790.66; it prints +1790, a slip), rank 0 included, which the model does
  // not reproduce (docs/model.md).
  Schedule one = generated("1f1b", 4, 16), zb = generated("zbh1", 4, 16);
  auto a = simulate(one, uniform(one, 1, 1, 1, 1000, 300)).devices;
  auto b = simulate(zb, uniform(zb, 1, 1, 1, 1000, 300)).devices;
  for (std::size_t d = 0; d < 4; ++d) CHECK(b[d].peak_memory - a[d].peak_memory == static_cast<Bytes>(d) * 300);
}

TEST_CASE("1F1B, two stages, unequal costs and a transfer: every op by hand") {
  // Stage 0: F=1, B=2, W=1 (BW=3); stage 1: F=2, B=3, W=1 (BW=4); transfer 0.5 ms.
  // Device 0 runs F0 F1 BW0 BW1; device 1 runs F0 BW0 F1 BW1.
  //   d0 F0 0-1, F1 1-2; d1 F0 arrives 1.5, runs 1.5-3.5; BW0 3.5-7.5; F1 (arrived 2.5) 7.5-9.5;
  //   BW1 9.5-13.5; d0 BW0 waits for the gradient 7.5+0.5 = 8: 8-11; BW1 waits 13.5+0.5: 14-17.
  // Busy: d0 1+1+3+3 = 8, d1 2+4+2+4 = 12; idle (17-8)+(17-12) = 14 of 2*17.
  Schedule s = generated("1f1b", 2, 2);
  SimResult r = simulate(s, test::two_stage_costs({10, 0.5}, {20, 2.0}));
  CHECK(timing(r, OpKind::F, 1, 0).start == ns(1.5));
  CHECK(timing(r, OpKind::F, 1, 1).start == ns(7.5));
  CHECK(timing(r, OpKind::BW, 0, 0).start == ns(8));
  CHECK(timing(r, OpKind::BW, 0, 1).start == ns(14));
  CHECK(r.makespan == ns(17));
  CHECK(r.devices[0].busy() == ns(8));
  CHECK(r.devices[1].busy() == ns(12));
  CHECK(r.bubble_rate() == doctest::Approx(14.0 / 34.0));
  // Sync optimizer step: 17 + the slower device's 2 ms.
  CHECK(r.step_time() == ns(19));
  // Memory: static 10 + two forwards of 100 on d0 (peak 210 at 1 ms); d1 holds one 200 at a time.
  CHECK(r.devices[0].peak_memory == 210);
  CHECK(r.devices[0].peak_time == ns(1));
  CHECK(r.devices[1].peak_memory == 220);
  CHECK(r.devices[1].peak_time == ns(1.5));
}

TEST_CASE("ZB-H1, two stages, unequal costs and a transfer: B frees before the next F allocates") {
  // Same costs. Device 0: F0 F1 B0 W0 B1 W1; device 1: F0 B0 F1 B1 W0 W1.
  //   d1 F0 1.5-3.5, B0 3.5-6.5, F1 6.5-8.5, B1 8.5-11.5, W0 11.5-12.5, W1 12.5-13.5.
  //   d0 F0 0-1, F1 1-2, B0 after 6.5+0.5: 7-9, W0 9-10, B1 after 11.5+0.5: 12-14, W1 14-15.
  // d1 memory: F0 +200; B0 ends at 6.5 freeing 150 (50 left for W0); F1 starts at 6.5 adding
  // 200: peak 250 at 6.5, never 400.
  Schedule s = generated("zbh1", 2, 2);
  SimResult r = simulate(s, test::two_stage_costs());
  CHECK(timing(r, OpKind::B, 0, 0).start == ns(7));
  CHECK(timing(r, OpKind::W, 1, 1).end == ns(13.5));
  CHECK(r.makespan == ns(15));
  CHECK(r.devices[1].peak_memory == 250);
  CHECK(r.devices[1].peak_time == ns(6.5));
  CHECK(r.devices[0].peak_memory == 200);
  // The memory timeline of device 0: +100 at 0, +100 at 1, -60 at 9 (B0), -40 at 10 (W0)...
  std::vector<std::pair<SimTime, Bytes>> expected = {{0, 0},        {0, 100},     {ns(1), 200}, {ns(9), 140},
                                                     {ns(10), 100}, {ns(14), 40}, {ns(15), 0}};
  const auto& mem = r.devices[0].memory;
  // The first two points share time 0 and merge into one.
  REQUIRE(mem.size() == expected.size() - 1);
  for (std::size_t i = 1; i < expected.size(); ++i) {
    CHECK(mem[i - 1].time == expected[i].first);
    CHECK(mem[i - 1].bytes == expected[i].second);
  }
}

TEST_CASE("a workspace is held from its op's start to its end, beside what the op keeps") {
  // The ZB-H1 case above with stage 1's F holding 30 bytes and its B 70 while they run. Device
  // 1: F0 1.5-3.5 holds 200 + 30; B0 3.5-6.5 holds 200 + 70 = 270; at 6.5 B0 ends (50 left for
  // W0) and F1 starts: 50 + 200 + 30 = 280; at 8.5 F1 ends (its 30 back) and B1 starts:
  // 250 + 70 = 320, the peak; B1's end at 11.5 frees 150 + 70, W0 and W1 their 50 each: 0.
  CostModel costs = test::two_stage_costs();
  costs.stages[1].f_workspace_bytes = 30;
  costs.stages[1].b_workspace_bytes = 70;
  const SimResult r = simulate(generated("zbh1", 2, 2), costs);
  CHECK(r.devices[1].peak_memory == 320);
  CHECK(r.devices[1].peak_time == ns(8.5));
  CHECK(r.devices[1].memory.back().bytes == 0);
  // F's own workspace, while F0 runs (1.5 to 3.5) and when F1 starts as B0 ends (6.5).
  const auto held_at = [&](double ms) {
    for (const auto& point : r.devices[1].memory) {
      if (point.time == ns(ms)) return point.bytes;
    }
    return Bytes{-1};
  };
  CHECK(held_at(1.5) == 230);
  CHECK(held_at(6.5) == 280);
  CHECK(r.devices[0].peak_memory == 200);  // stage 0 holds none
  CHECK(r.makespan == ns(15));             // and the times do not move
}

TEST_CASE("transfer as latency + bytes / bandwidth") {
  // 0.01 ms + 1e8 bytes / 50 GB/s = 0.01 + 2 ms; the last micro-batch on 1F1B with 2 stages
  // and 1 micro-batch pays it twice: F0 + t + F1 + BW1 + t + BW0 = 1 + 2.01 + 1 + 2 + 2.01 + 2.
  Schedule s = generated("1f1b", 2, 1);
  CostModel c = uniform(s, 1, 1, 1);
  c.transfer = TransferCost{std::nullopt, 0.01, 50.0, 100'000'000};
  CHECK(simulate(s, c).makespan == ns(10.02));
}

TEST_CASE("the same input gives the same result, op for op") {
  Schedule s = generated("zbh1", 5, 13);
  CostModel c = uniform(s, 1.1, 1.3, 0.7, 64, 16);
  c.transfer.fixed_ms = 0.05;
  std::vector<OpTiming> a = test::all_ops(simulate(s, c)), b = test::all_ops(simulate(s, c));
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].op == b[i].op);
    CHECK(a[i].start == b[i].start);
    CHECK(a[i].device == b[i].device);
  }
}

TEST_CASE("each device runs its list in order, and ops_by_start orders them by start, then device") {
  Schedule s = generated("zbh1", 4, 8);
  SimResult r = simulate(s, uniform(s, 1, 2, 1));
  std::vector<OpTiming> ops = test::all_ops(r);
  REQUIRE(ops.size() == s.op_count());
  for (std::size_t i = 1; i < ops.size(); ++i) {
    const OpTiming& a = ops[i - 1];
    const OpTiming& b = ops[i];
    CHECK((a.start < b.start || (a.start == b.start && a.device < b.device)));
  }
  std::vector<std::size_t> next(4, 0);
  std::vector<SimTime> free_at(4, 0);
  for (const OpTiming& t : ops) {
    std::size_t d = static_cast<std::size_t>(t.device);
    CHECK(t.op == s.order[d][next[d]++]);
    CHECK(t.start >= free_at[d]);
    free_at[d] = t.end;
  }
}

TEST_CASE("a deadlock is reported with each blocked device and what it waits for") {
  // Device 1 wants micro-batch 1's forward first; device 0 sends it only after micro-batch 0's
  // backward, which device 1 runs after that forward: a cycle.
  Schedule s = generated("1f1b", 2, 2);
  s.order[0] = {{OpKind::F, 0, 0}, {OpKind::BW, 0, 0}, {OpKind::F, 0, 1}, {OpKind::BW, 0, 1}};
  s.order[1] = {{OpKind::F, 1, 1}, {OpKind::BW, 1, 1}, {OpKind::F, 1, 0}, {OpKind::BW, 1, 0}};
  SimResult r = simulate(s, uniform(s, 1, 1, 1));
  REQUIRE(r.deadlocked());
  REQUIRE(r.deadlock.size() == 2);
  CHECK(r.deadlock[0].device == 0);
  CHECK(r.deadlock[0].head == Op{OpKind::BW, 0, 0});
  REQUIRE(r.deadlock[0].waiting_for.size() == 1);
  CHECK(r.deadlock[0].waiting_for[0].stage == 1);
  CHECK(r.deadlock[1].head == Op{OpKind::F, 1, 1});
  CHECK(r.deadlock[1].index == 0);
}

TEST_CASE("an incomplete schedule or mismatched costs cannot be simulated") {
  Schedule s = generated("1f1b", 2, 2);
  s.order[0].pop_back();
  CHECK(test::error_of([&] { (void)simulate(s, uniform(s, 1, 1, 1)); }).find("missing") != std::string::npos);
  Schedule t = generated("1f1b", 2, 2);
  CostModel three = uniform_costs(3, 2, StageCost{1, 1, 1, 0, 0}, 0);
  CHECK(test::error_of([&] { (void)simulate(t, three); }).find("3 stages") != std::string::npos);
}

TEST_CASE("an overlapped FB op: one op, both outputs at its end, its own time when the costs give one") {
  // One device holds stages 0 and 1 (the V with P = 1). Order: F(s0,m0), F(s1,m0), then
  // FB = F(s0,m1) with BW(s1,m0), then BW(s0,m0), F(s1,m1), BW(s1,m1), BW(s0,m1).
  // F = 1, B = 2, W = 1 (BW = 3): without f_and_b_ms FB takes 1 + 3 = 4; with 2.5 it takes 2.5.
  Schedule s = generated("zbv", 1, 2);
  s.order[0] = {{OpKind::F, 0, 0}, {OpKind::F, 1, 0},  overlapped(0, 1, 1, 0), {OpKind::BW, 0, 0},
                {OpKind::F, 1, 1}, {OpKind::BW, 1, 1}, {OpKind::BW, 0, 1}};
  CostModel c = uniform(s, 1, 2, 1, 100, 40);
  // F 0-1, F 1-2, FB 2-6, BW 6-9, F 9-10, BW 10-13, BW 13-16.
  SimResult plain = simulate(s, c);
  CHECK(plain.makespan == ns(16));
  CHECK(plain.devices[0].ops[2].op == overlapped(0, 1, 1, 0));
  CHECK(plain.devices[0].ops[2].end == ns(6));
  // Memory: F, F: 200; FB allocates stage 0's 100 at its start (300 peak at 2), frees stage
  // 1's 100 at its end.
  CHECK(plain.devices[0].peak_memory == 300);
  for (StageCost& st : c.stages) st.f_and_b_ms = 2.5;
  SimResult faster = simulate(s, c);
  CHECK(faster.makespan == ns(14.5));
  CHECK(faster.lower_bound <= faster.step_time());
}

TEST_CASE("an FB pair run layer by layer holds one layer beyond what its backward has freed") {
  // The schedule above, each stage four layers of 25 bytes (Megatron-Core's combined 1F1B runs
  // forward layer i beside backward layer 3 - i and frees the latter after the pair): before the
  // FB the device holds both stages' 100; during it, 100 + 100 + 25 - 0 at most (one forward
  // layer made before the first backward layer is freed), then back to 200 at its end.
  Schedule s = generated("zbv", 1, 2);
  s.order[0] = {{OpKind::F, 0, 0}, {OpKind::F, 1, 0},  overlapped(0, 1, 1, 0), {OpKind::BW, 0, 0},
                {OpKind::F, 1, 1}, {OpKind::BW, 1, 1}, {OpKind::BW, 0, 1}};
  CostModel c = uniform(s, 1, 2, 1, 100, 40);
  for (StageCost& st : c.stages) st.layer_activation_bytes = 25;
  const SimResult layered = simulate(s, c);
  CHECK(layered.devices[0].peak_memory == 225);
  CHECK(layered.makespan == ns(16));  // the times are the pair's as before
  // One stage without layers given: the pair holds its forward whole, as DualPipe's reference runs it.
  c.stages[1].layer_activation_bytes = 0;
  CHECK(simulate(s, c).devices[0].peak_memory == 300);
}
