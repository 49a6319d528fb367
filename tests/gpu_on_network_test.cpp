#include <doctest/doctest.h>

#include <string>

#include "estimate/collective_link.hpp"
#include "estimate/gpu_catalog.hpp"
#include "estimate/gpu_on_network.hpp"
#include "estimate/rank_placement.hpp"
#include "io/model_flags.hpp"
#include "model/error.hpp"

using namespace pipeplan;

// --network: the table's card on another network (docs/costs.md, "Collectives"). A rate is what
// one GPU gets each way, priced as the table prices InfiniBand: 47 of every 50 GB/s for a ring
// collective and for a send (nccl-tests' measured NIC rate), at its 0.02 ms latency.

TEST_CASE("a rate in Gb/s per GPU: GB/s at InfiniBand's latency and measured efficiency") {
  const LinkSpec hdr = named_networks()[0].link;
  const LinkSpec fifty = network_at(50, "four 100 Gb/s cards over 8 GPUs");
  CHECK(fifty.bandwidth_gb_per_s == doctest::Approx(6.25));  // 50 / 8
  CHECK(fifty.latency_ms == hdr.latency_ms);
  CHECK(fifty.collective_efficiency == doctest::Approx(47.0 / 50.0));
  CHECK(fifty.send_efficiency == doctest::Approx(47.0 / 50.0));
  // A 1 GB ring all-gather share sent once: 0.02 ms + 1e9 / (6.25e9 x 0.94) s = 170.23 ms.
  CHECK(fifty.collective_ms(1e9) == doctest::Approx(0.02 + 1e3 / (6.25 * 0.94)));
}

TEST_CASE("the named networks are the table's own links: ndr is the H100's, xdr the B300's") {
  REQUIRE(named_networks().size() == 3);
  CHECK(named_networks()[0].name == "hdr");
  CHECK(named_networks()[0].link.bandwidth_gb_per_s == 25.0);
  CHECK(named_networks()[1].link.bandwidth_gb_per_s == gpu_named("h100").inter_node.bandwidth_gb_per_s);
  CHECK(named_networks()[1].link.name == gpu_named("h100").inter_node.name);
  CHECK(named_networks()[2].link.bandwidth_gb_per_s == gpu_named("b300").inter_node.bandwidth_gb_per_s);
}

TEST_CASE("a card on another network keeps everything but the network, and its name outlives copies") {
  const GpuSpec& h100 = gpu_named("h100");
  std::shared_ptr<const GpuOnNetwork> card =
      gpu_on_network(h100, network_at(100, ""), std::string("a network of 100 Gb/s per GPU"));
  const std::shared_ptr<const GpuOnNetwork> copy = card;
  card.reset();
  CHECK(copy->spec.inter_node.name == "a network of 100 Gb/s per GPU");
  CHECK(copy->spec.inter_node.bandwidth_gb_per_s == 12.5);
  CHECK(copy->spec.name == h100.name);
  CHECK(copy->spec.intra_node.bandwidth_gb_per_s == h100.intra_node.bandwidth_gb_per_s);
  CHECK(copy->spec.tflops_bf16 == h100.tflops_bf16);
  CHECK(copy->spec.nvlink_domain == h100.nvlink_domain);
}

TEST_CASE("a data-parallel group across nodes gets its members' share of the network") {
  // dp 16 of tp 1 on 8-GPU nodes: 8 members a node, so 8 GPUs' shares, 8 x 6.25 x 0.94 = 47 GB/s
  // of bus bandwidth, where the table's one 400 Gb/s card per GPU gives 8 x 47 = 376, capped at
  // NVLink 4's 367.6 (docs/costs.md, "Collectives").
  const RankGrid grid{.tp = 1, .pp = 1, .dp = 16, .ep = 1, .gpus_per_node = 8};
  const std::shared_ptr<const GpuOnNetwork> card = gpu_on_network(gpu_named("h100"), network_at(50, ""), "50");
  const LinkSpec slow = collective_link(card->spec, grid, RankGroup::Data);
  CHECK(slow.bandwidth_gb_per_s * slow.collective_efficiency == doctest::Approx(47.0));
  const LinkSpec table = collective_link(gpu_named("h100"), grid, RankGroup::Data);
  CHECK(table.bandwidth_gb_per_s * table.collective_efficiency == doctest::Approx(367.6));
}

TEST_CASE("--network: a name or a rate, the card's table entry otherwise, refused by name") {
  ModelFlags f;
  f.model = PIPEPLAN_TEST_DATA "/models/tiny-llama.json";
  f.gpu = "a100-80gb";
  CHECK(read_model_input(f).network_card == nullptr);
  CHECK(read_model_input(f).gpu == &gpu_named("a100-80gb"));
  f.network = "NDR";
  CHECK(read_model_input(f).gpu->inter_node.bandwidth_gb_per_s == 50.0);
  f.network = "50";
  const ModelInput in = read_model_input(f);
  CHECK(in.gpu->inter_node.bandwidth_gb_per_s == 6.25);
  CHECK(in.gpu->name == "a100-80gb");
  CHECK(describe_input(in).find("on a network of 50 Gb/s per GPU (--network)") != std::string::npos);
  for (const char* bad : {"0", "-5", "1e9", "fast", "50 ", "+50", "nan", ""}) {
    f.network = bad;
    if (std::string(bad).empty()) {
      CHECK(read_model_input(f).network_card == nullptr);  // not given
      continue;
    }
    CHECK_THROWS_WITH_AS((void)read_model_input(f),
                         doctest::Contains("--network: expected hdr, ndr, xdr, or a rate in Gb/s each way per GPU"),
                         FlagError);
  }
}
