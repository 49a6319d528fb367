#include <doctest/doctest.h>

#include <cmath>

#include "costs/cost_model.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("a transfer takes latency + bytes / bandwidth, or its fixed time") {
  TransferCost t{std::nullopt, 0.5, 25.0, 50'000'000};  // 0.5 ms + 5e7 B / 2.5e10 B/s = 0.5 + 2 ms
  CHECK(t.ms() == doctest::Approx(2.5));
  t.fixed_ms = 0.25;
  CHECK(t.ms() == 0.25);
}

TEST_CASE("costs that cannot be simulated name their field") {
  CostModel c = uniform_costs(2, 2, StageCost{1, 1, 1, 10, 5}, 0);
  CHECK(test::error_of([&] { check_costs(c); }).empty());
  c.stages[1].w_ms = NAN;
  CHECK(test::error_of([&] { check_costs(c); }).rfind("stages[1].w_ms: expected a finite", 0) == 0);
  c = uniform_costs(2, 2, StageCost{1, 1, 1, 10, 5}, 0);
  c.devices[0].static_memory_bytes = -1;
  CHECK(test::error_of([&] { check_costs(c); }).rfind("devices[0].static_memory_bytes", 0) == 0);
}

TEST_CASE("the costs must describe the schedule's stages and devices") {
  CostModel c = uniform_costs(4, 4, StageCost{}, 0);
  CHECK(test::error_of([&] { check_dimensions(c, 4, 4); }).empty());
  CHECK(test::error_of([&] { check_dimensions(c, 8, 4); }) ==
        "the costs describe 4 stages but the schedule has 8: give a profile with one entry per stage");
  CostModel none;
  none.stages.resize(2);
  default_devices(none, 2);
  CHECK(none.devices.size() == 2);
}

TEST_CASE("costs of P stages split evenly into chunks for a schedule of P*V stages") {
  CostModel c = uniform_costs(2, 2, StageCost{3, 6, 1.5, 900, 300}, 0.25);
  c.stages[1].f_ms = 9;
  CostModel split = costs_for_stages(c, 6, 2);  // 3 chunks per device
  REQUIRE(split.stages.size() == 6);
  CHECK(split.stages[0].f_ms == 1);
  CHECK(split.stages[2].b_ms == 2);
  CHECK(split.stages[3].f_ms == 3);  // stage 1's third, in model order
  CHECK(split.stages[5].activation_bytes == 300);
  CHECK(split.stages[5].w_activation_bytes == 100);
  CHECK(split.transfer.ms() == 0.25);
  CHECK(test::error_of([&] {
          (void)costs_for_stages(c, 5, 2);
        }).find("the costs describe 2 stages but the schedule has 5") == 0);
  // Two stages' costs do not describe four devices' shares.
  CHECK(!test::error_of([&] { (void)costs_for_stages(c, 4, 4); }).empty());
}

TEST_CASE("an FB pair run layer by layer holds at most one forward layer beyond what its backward freed") {
  // Forward layer i beside backward layer n - 1 - i, the latter freed after the pair: after step
  // i the pair holds (i + 1) f - i b of layers f and b (model_chunk_schedule_plan.py).
  CHECK(fb_held_bytes(800, 0, 800, 100) == 800);    // no layers given: the forward whole
  CHECK(fb_held_bytes(800, 100, 800, 100) == 100);  // alike: one layer, at every step
  CHECK(fb_held_bytes(1000, 100, 800, 80) == 280);  // 10 x 100 beside 10 x 80: 10 x 100 - 9 x 80
  CHECK(fb_held_bytes(800, 80, 1000, 100) == 80);   // the smaller forward: its first layer
  CHECK(fb_held_bytes(100, 100, 100, 100) == 100);  // one layer a stage: the whole forward, as before
}
