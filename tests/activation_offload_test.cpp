#include <doctest/doctest.h>

#include <vector>

#include "estimate/activation_offload.hpp"
#include "test_support.hpp"

using namespace pipeplan;

// Four layers of F 10 ms and backward 20 ms, the first two offloaded: at most 4 - 2 = 2 layers'
// activations on the card. At 1 GB/s a layer of `mb` MB copies in `mb` ms. Each case's timeline
// is worked out by hand in its comments, by Transformer Engine's default scheduling
// (docs/costs.md, "Activation offloading").
namespace {

std::vector<OffloadedLayer> four_layers(double megabytes) {
  return std::vector<OffloadedLayer>(4, OffloadedLayer{10.0, 20.0, megabytes * 1e6});
}

}  // namespace

TEST_CASE("copies shorter than a layer hide under the compute both ways") {
  // Forward: layer 0 runs 0-10, its copy 0-5 ends with it at 10; layer 1 10-20, copy to 20;
  // layer 2 may start once one copy is done (10), layer 3 once both are (20): no wait. Backward
  // from layer 3: 0-20, layer 2 20-40; layer 1's copy back starts when layer 3's backward has
  // freed room (20), ends at 25, before layer 1's backward at 40; layer 0's starts at 40 (layer
  // 2's end), ends at 45, before 60.
  const OffloadStallMs s = offload_stall_ms(four_layers(5), 2, 1.0);
  CHECK(s.forward == 0.0);
  CHECK(s.backward == 0.0);
}

TEST_CASE("copies longer than a layer make the forward wait for room and the backward for its data") {
  // 30 ms a copy. Forward: layer 0 0-10, its copy 0-30; layer 1 10-20, its copy 30-60; layer 2
  // waits for the first copy (30), runs 30-40; layer 3 for the second (60), 60-70: 30 ms over
  // the 40 of compute. Backward: layer 3 0-20, layer 2 20-40; layer 1's copy back 20-50 (after
  // layer 3 freed room), so layer 1 runs 50-70; layer 0's 50-80, layer 0 runs 80-100: 20 ms over.
  const OffloadStallMs s = offload_stall_ms(four_layers(30), 2, 1.0);
  CHECK(s.forward == doctest::Approx(30.0));
  CHECK(s.backward == doctest::Approx(20.0));
  // The same copies over a link ten times as fast: 3 ms each, nothing waits.
  const OffloadStallMs fast = offload_stall_ms(four_layers(30), 2, 10.0);
  CHECK(fast.forward == 0.0);
  CHECK(fast.backward == 0.0);
}

TEST_CASE("one layer kept on the card leaves no room to overlap the copy back") {
  // Two layers, the first offloaded (model_layers - 1, which Transformer Engine warns of): its
  // 5 ms copy hides under its own forward, but its copy back waits for layer 1's backward to end
  // (20) and layer 0's backward for the copy (25).
  const std::vector<OffloadedLayer> two(2, OffloadedLayer{10.0, 20.0, 5e6});
  const OffloadStallMs s = offload_stall_ms(two, 1, 1.0);
  CHECK(s.forward == 0.0);
  CHECK(s.backward == doctest::Approx(5.0));
}

TEST_CASE("nothing offloaded, nothing waits") {
  const OffloadStallMs s = offload_stall_ms(four_layers(30), 0, 1.0);
  CHECK(s.forward == 0.0);
  CHECK(s.backward == 0.0);
}

TEST_CASE("Megatron-LM's rules: one stage, no recompute, fewer layers offloaded than the model has") {
  TrainingSettings t;
  t.offload_layers = 2;
  check_activation_offload(t, 4, 1);
  CHECK(test::error_of([&] { check_activation_offload(t, 4, 2); }) ==
        "--offload-layers 2: Megatron-LM offloads activations only without pipeline parallelism, on one stage, not 2");
  CHECK(test::error_of([&] { check_activation_offload(t, 2, 1); }) ==
        "--offload-layers 2: Megatron-LM offloads fewer layers than the model has (2), at most 1");
  t.recompute = Recompute::Full;
  CHECK(test::error_of([&] { check_activation_offload(t, 4, 1); })
            .starts_with(
                "--offload-layers 2: Megatron-LM refuses activation offloading with recompute (--recompute full)"));
  t.offload_layers = 0;
  check_activation_offload(t, 4, 8);  // nothing to offload: nothing to refuse
}
