// The link a ring collective takes (docs/costs.md, "Collectives"): the node's within a node; across
// nodes, one network card per member a node holds, up to the node's own ring bus bandwidth.
#include <doctest/doctest.h>

#include "estimate/collective_link.hpp"
#include "estimate/gpu_catalog.hpp"

using namespace pipeplan;

TEST_CASE("a collective across nodes crosses on one card per member a node, up to the node's link") {
  const GpuSpec& h100 = gpu_named("h100");
  // tp 8, dp 4 on 8-GPU nodes: each data-parallel group {t, t + 8, t + 16, t + 24} has one
  // member a node: one NDR card, 50 GB/s nominal (47 reached, gpu_catalog.cpp), its latency.
  const RankGrid tp8{8, 1, 4, 1, 8, RankOrder::TpDpPp};
  const LinkSpec one = collective_link(h100, tp8, RankGroup::Data);
  CHECK(one.bandwidth_gb_per_s == doctest::Approx(50.0));
  CHECK(one.collective_ms(47e9) == doctest::Approx(one.latency_ms + 1e3));
  CHECK(one.latency_ms == h100.inter_node.latency_ms);
  // tp 2, dp 16: 4 members a node, 4 cards, 4 x 47 = 188 GB/s (under NVLink 4's 367.6 GB/s ring
  // busbw).
  const RankGrid tp2{2, 1, 16, 1, 8, RankOrder::TpDpPp};
  CHECK(collective_link(h100, tp2, RankGroup::Data).bandwidth_gb_per_s == doctest::Approx(188.0));
  // tp 1, dp 32: 8 cards, 400 GB/s, but the node's ring moves 367.6 GB/s: that bounds it.
  const RankGrid tp1{1, 1, 32, 1, 8, RankOrder::TpDpPp};
  const LinkSpec eight = collective_link(h100, tp1, RankGroup::Data);
  CHECK(eight.bandwidth_gb_per_s == doctest::Approx(367.6));
  CHECK(eight.collective_efficiency == 1.0);  // already a bus bandwidth
  // Within a node: the node's link, its ring efficiency applied when a collective is timed.
  const LinkSpec inside = collective_link(h100, tp8, RankGroup::Tensor);
  CHECK(inside.bandwidth_gb_per_s == 450.0);
  CHECK(inside.collective_ms(367.6e9) == doctest::Approx(inside.latency_ms + 1e3));
  // GB200 in 64-GPU job segments: FSDP over dp 64 with tp 2 spans two segments, 32 members in
  // each: 32 cards of 50 GB/s outpace NVLink 5's 679.6 GB/s ring busbw, which bounds it.
  const GpuSpec& gb200 = gpu_named("gb200");
  const RankGrid fsdp{2, 1, 64, 1, gb200.placement_domain(), RankOrder::TpDpPp};
  CHECK(collective_link(gb200, fsdp, RankGroup::Data).bandwidth_gb_per_s == doctest::Approx(679.6));
}
