// Megatron-Core's buckets of the overlapped data-parallel collectives (docs/costs.md, "Buckets";
// gradient_buckets.hpp). Every number below is worked by hand on a 1 GB/s link without latency:
// over 4 replicas sharding the optimizer, P parameters reduce-scatter 3/4 of 4P bytes (R = 3 ms a
// million) and gather 3/4 of 2P bf16 bytes (G = 1.5 ms a million).
#include <doctest/doctest.h>

#include "estimate/gradient_buckets.hpp"

using namespace pipeplan;

namespace {

const LinkSpec kLink{"link", 1.0, 0.0};
const Replicas kFour{4, Sharding::Optimizer, false, 4};

TrainingSettings overlapped(bool grad = true, bool param = true) {
  TrainingSettings t;
  t.overlap_grad_reduce = grad;
  t.overlap_param_gather = param;
  return t;
}

BucketPiece dense(double millions, double forward_ms, double backward_ms) {
  return {millions * 1e6, 0, forward_ms, backward_ms};
}

// An embedding of 1M, two layers of 2M and a head of 1M parameters; F 1, 4, 4, 1 ms, B + W twice.
BucketStage small_model(bool bucketed) {
  return {{dense(1, 1, 2), dense(2, 4, 8), dense(2, 4, 8), dense(1, 1, 2)}, bucketed};
}

BucketedCollectives run(const std::vector<BucketStage>& stages, const TrainingSettings& t, double lead = 0) {
  return bucketed_collectives(stages, 2e6, {&kFour, &kLink}, {}, DType::BF16, t, lead);
}

}  // namespace

TEST_CASE("Megatron-Core's default bucket grows with the data-parallel ranks past 40M parameters") {
  CHECK(default_bucket_params(8) == 40e6);
  CHECK(default_bucket_params(40) == 40e6);
  CHECK(default_bucket_params(512) == 512e6);
  // --ddp-bucket-size replaces it.
  TrainingSettings t;
  CHECK(bucket_params(t, 512) == 512e6);
  t.bucket_params = 134217728;
  CHECK(bucket_params(t, 512) == 134217728.0);
}

TEST_CASE("the last bucket the backward makes is reduced after it, the first the forward needs gathered before it") {
  // Buckets of 2M close in backward order: the head and the last layer (3M, ready when the
  // backward has run 2 + 8 = 10 ms, needed from the forward's 5th ms), the first layer (2M, ready
  // at 18, needed at 1), the embedding (1M, ready at the backward's end, 20, needed at 0).
  const BucketedCollectives b = run({small_model(true)}, overlapped());
  CHECK(b.total.reduce_ms == doctest::Approx(18.0));
  CHECK(b.total.gather_ms == doctest::Approx(9.0));
  // Reductions of 9, 6 and 3 ms queue: 10 to 19, 19 to 25, 25 to 28; the backward ended at 20.
  // Hidden under the whole backward as a stream would be, max(0, 18 - 20) = 0 would show.
  CHECK(b.reduce_exposed_ms == doctest::Approx(8.0));
  // Gathers of 1.5 (embedding), 3 and 4.5 ms, one ahead: the forward waits 1.5 at its start; the
  // first layer's, dispatched then, ends at 4.5, and the forward reaches it at 1 + 1.5: 2 more;
  // the last bucket's, dispatched at 4.5, ends at 9, reached at 5 + 3.5: 0.5 more.
  CHECK(b.gather_exposed_ms == doctest::Approx(4.0));
}

TEST_CASE("a stage Megatron-Core does not bucket hides none of its collectives") {
  // Pipeline ranks after the first keep one bucket: its reduction starts at the backward's end
  // and its gather before the first piece.
  const BucketedCollectives b = run({small_model(false)}, overlapped());
  CHECK(b.reduce_exposed_ms == doctest::Approx(18.0));
  CHECK(b.gather_exposed_ms == doctest::Approx(9.0));
  // Without --overlap-grad-reduce there are no buckets either, and without the overlaps the step
  // waits for all of it.
  const BucketedCollectives off = run({small_model(true)}, overlapped(false, false));
  CHECK(off.reduce_exposed_ms == doctest::Approx(18.0));
  CHECK(off.gather_exposed_ms == doctest::Approx(9.0));
  const BucketedCollectives unsplit = run({small_model(true)}, overlapped(false, true));
  CHECK(unsplit.gather_exposed_ms == doctest::Approx(9.0));
}

TEST_CASE("dispatched at the step's start, the first gather runs under the wait for the stages before") {
  // 2 ms ahead of the forward: the embedding's gather ends at -0.5 (no wait); the first layer's,
  // dispatched at 0, ends at 3, reached at 1 (2 ms); the last, dispatched at 3, ends at 7.5,
  // reached at 5 + 2 (0.5 ms).
  CHECK(run({small_model(true)}, overlapped(), 2.0).gather_exposed_ms == doctest::Approx(2.5));
}

TEST_CASE("a device of several stages queues each stage's gathers from the stage before it") {
  // Interleaving: the first stage's two buckets (1M each) dispatched at the start, the second
  // stage's (1M) when the forward reaches the first. Gathers of 1.5 ms: the first ends at 1.5
  // (wait 1.5), the second at 3, reached at 1 + 1.5 (0.5 more), the third at 4.5, reached at
  // 2 + 2 (0.5 more).
  const BucketStage first{{dense(1, 1, 1), dense(1, 1, 1)}, true};
  const BucketStage second{{dense(1, 1, 1)}, false};
  const BucketedCollectives b =
      bucketed_collectives({first, second}, 1e6, {&kFour, &kLink}, {}, DType::BF16, overlapped());
  CHECK(b.gather_exposed_ms == doctest::Approx(2.5));
  // The backward runs the second stage first: its reduction (3 ms) from 1 to 4, the first
  // stage's buckets from 4 to 7 and 7 to 10, the backward ending at 3: 7 ms past it.
  CHECK(b.reduce_exposed_ms == doctest::Approx(7.0));
}

TEST_CASE("the experts' buckets queue beside the dense ones") {
  // One unbucketed piece of 1M dense and 1M expert parameters, the experts over 2 replicas:
  // their reduce-scatter moves 1/2 of 4M bytes, 2 ms, after the dense 3 ms.
  const Replicas two{2, Sharding::Optimizer, false, 4};
  const BucketStage stage{{{1e6, 1e6, 1, 2}}, false};
  const BucketedCollectives b =
      bucketed_collectives({stage}, 2e6, {&kFour, &kLink}, {&two, &kLink}, DType::BF16, overlapped());
  CHECK(b.total.reduce_ms == doctest::Approx(5.0));
  CHECK(b.reduce_exposed_ms == doctest::Approx(5.0));
}
