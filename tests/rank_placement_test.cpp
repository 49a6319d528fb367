#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "estimate/rank_placement.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

// The rank of (t, d, p) written out from the order's definition, independently of rank_of:
// tensor parallelism fastest, then data then pipeline parallelism, or pipeline then data.
long rank_by_hand(const RankGrid& g, int t, int d, int p) {
  return g.order == RankOrder::TpDpPp ? t + long(g.tp) * (d + long(g.dp) * p) : t + long(g.tp) * (p + long(g.pp) * d);
}

long node(const RankGrid& g, long rank) {
  return rank / g.gpus_per_node;
}

// Every group's node set, by enumerating the ranks of the whole job.
bool all_within_node_by_hand(const RankGrid& g, RankGroup group) {
  const int edp = g.dp / g.ep;
  for (int p = 0; p < g.pp; ++p) {
    for (int t = 0; t < g.tp; ++t) {
      for (int d = 0; d < g.dp; ++d) {
        // The group through (t, d, p): its members vary one coordinate.
        std::vector<long> members;
        const int e = d % g.ep, q = d / g.ep;  // data-parallel rank d = e + ep·q
        switch (group) {
          case RankGroup::Tensor:
          case RankGroup::ExpertTensor:  // etp = tp here
            for (int i = 0; i < g.tp; ++i) members.push_back(rank_by_hand(g, i, d, p));
            break;
          case RankGroup::Data:
          case RankGroup::DataContext:  // cp 1 here
            for (int i = 0; i < g.dp; ++i) members.push_back(rank_by_hand(g, t, i, p));
            break;
          case RankGroup::Context:  // cp 1: the rank alone
            members.push_back(rank_by_hand(g, t, d, p));
            break;
          case RankGroup::Expert:
            for (int i = 0; i < g.ep; ++i) members.push_back(rank_by_hand(g, t, i + g.ep * q, p));
            break;
          case RankGroup::ExpertData:
            for (int i = 0; i < edp; ++i) members.push_back(rank_by_hand(g, t, e + g.ep * i, p));
            break;
        }
        for (long r : members) {
          if (node(g, r) != node(g, members.front())) return false;
        }
      }
    }
  }
  return true;
}

bool crosses_by_hand(const RankGrid& g, int a, int b) {
  for (int t = 0; t < g.tp; ++t) {
    for (int d = 0; d < g.dp; ++d) {
      if (node(g, rank_by_hand(g, t, d, a)) != node(g, rank_by_hand(g, t, d, b))) return true;
    }
  }
  return false;
}

RankGrid grid(int tp, int pp, int dp, int node, RankOrder order, int ep = 1) {
  return {tp, pp, dp, ep, node, order};
}

}  // namespace

TEST_CASE("rank orders have Megatron's names") {
  CHECK(rank_order_name(RankOrder::TpDpPp) == "tp-dp-pp");
  CHECK(rank_order_name(RankOrder::TpPpDp) == "tp-pp-dp");
  CHECK(rank_order_named("TP-PP-DP") == RankOrder::TpPpDp);
  CHECK_FALSE(rank_order_named("pp-dp-tp").has_value());
}

TEST_CASE("tp 4, pp 4, dp 4 on 8-GPU nodes: Megatron's order against pipeline neighbours side by side") {
  // tp-dp-pp: rank = t + 4d + 16p. Pipeline 0 is ranks 0, 16, 32, 48: every neighbour 16 ranks,
  // two nodes, apart. The data-parallel group of t = 0 at device 0 is {0, 4, 8, 12}: nodes 0 and 1.
  const RankGrid megatron = grid(4, 4, 4, 8, RankOrder::TpDpPp);
  CHECK(rank_of(megatron, 0, 0, 1) == 16);
  CHECK(rank_of(megatron, 3, 2, 3) == 3 + 8 + 48);
  for (int d = 0; d < 3; ++d) CHECK(pipeline_crosses_nodes(megatron, d, d + 1));
  CHECK(within_node(megatron, RankGroup::Tensor));  // {0..3}, {4..7}, ...
  CHECK_FALSE(within_node(megatron, RankGroup::Data));
  // tp-pp-dp: rank = t + 4p + 16d. Pipeline 0 is ranks 0, 4, 8, 12 on nodes 0, 0, 1, 1: the
  // boundaries 0->1 and 2->3 stay inside a node, 1->2 crosses, and so does the wrap 3->0 an
  // interleaved schedule takes. Every replica alike (its ranks are 0..15 shifted by 16d + t, t < 4).
  const RankGrid stages = grid(4, 4, 4, 8, RankOrder::TpPpDp);
  CHECK(rank_of(stages, 0, 0, 3) == 12);
  CHECK(rank_of(stages, 1, 2, 1) == 1 + 4 + 32);
  CHECK_FALSE(pipeline_crosses_nodes(stages, 0, 1));
  CHECK(pipeline_crosses_nodes(stages, 1, 2));
  CHECK_FALSE(pipeline_crosses_nodes(stages, 2, 3));
  CHECK(pipeline_crosses_nodes(stages, 3, 0));
  CHECK_FALSE(pipeline_crosses_nodes(stages, 2, 2));  // one device: no transfer at all
  CHECK_FALSE(within_node(stages, RankGroup::Data));  // {0, 16, 32, 48}
  CHECK(within_node(stages, RankGroup::Tensor));
  CHECK_FALSE(same_links(megatron, stages));
  // Both spread the data-parallel groups, Megatron's with 2 members a node ({0, 4} and {8, 12}),
  // tp-pp-dp's with 1: its all-reduce crosses on one card a node, Megatron's on two. tp-pp-dp
  // keeps two boundaries in a node. Neither is as fast everywhere.
  CHECK(fewest_members_per_node(megatron, RankGroup::Data) == 2);
  CHECK(fewest_members_per_node(stages, RankGroup::Data) == 1);
  CHECK(fewest_members_per_node(stages, RankGroup::Tensor) == 4);
  CHECK_FALSE(links_as_fast(stages, megatron));
  CHECK_FALSE(links_as_fast(megatron, stages));
}

TEST_CASE("tp 2, pp 3, dp 2 on 8-GPU nodes: a replica that straddles two nodes sets the link") {
  // tp-dp-pp: rank = t + 2d + 4p. Device 0 holds ranks 0..3, device 1 4..7 (node 0), device 2
  // 8..11 (node 1): 0->1 inside a node, 1->2 across; each data-parallel group {t, t + 2} + 4p
  // lies in one node.
  const RankGrid megatron = grid(2, 3, 2, 8, RankOrder::TpDpPp);
  CHECK_FALSE(pipeline_crosses_nodes(megatron, 0, 1));
  CHECK(pipeline_crosses_nodes(megatron, 1, 2));
  CHECK(within_node(megatron, RankGroup::Data));
  // tp-pp-dp: rank = t + 2p + 6d. Replica 0 is ranks 0..5, all on node 0; replica 1 is 6,7 | 8,9 |
  // 10,11: its device 0 on node 0, devices 1 and 2 on node 1. So 0->1 takes the network (for
  // replica 1, the slowest), 1->2 does not; the data-parallel groups {t + 2p, t + 2p + 6} span
  // nodes 0 and 1 for p = 1 and 2 (2 + 6 = 8).
  const RankGrid stages = grid(2, 3, 2, 8, RankOrder::TpPpDp);
  CHECK(pipeline_crosses_nodes(stages, 0, 1));
  CHECK_FALSE(pipeline_crosses_nodes(stages, 1, 2));
  CHECK_FALSE(within_node(stages, RankGroup::Data));
  // Each is faster somewhere: the data-parallel groups against the boundary 1->2.
  CHECK_FALSE(links_as_fast(megatron, stages));
  CHECK_FALSE(links_as_fast(stages, megatron));
}

TEST_CASE("groups that do not divide the node: tp 3 on 8-GPU nodes") {
  // Tensor-parallel groups {0,1,2}, {3,4,5}, {6,7,8}: the third straddles nodes 0 and 1 once
  // there are three of them; two fit in node 0.
  CHECK(within_node(grid(3, 1, 2, 8, RankOrder::TpDpPp), RankGroup::Tensor));
  CHECK_FALSE(within_node(grid(3, 1, 3, 8, RankOrder::TpDpPp), RankGroup::Tensor));
  // A tensor-parallel degree beyond the node (a user's --tp 16) takes the network.
  CHECK_FALSE(within_node(grid(16, 1, 1, 8, RankOrder::TpDpPp), RankGroup::Tensor));
}

TEST_CASE("one node: every group inside it, under either order") {
  const RankGrid a = grid(2, 2, 2, 8, RankOrder::TpDpPp);
  const RankGrid b = grid(2, 2, 2, 8, RankOrder::TpPpDp);
  for (const RankGrid& g : {a, b}) {
    for (RankGroup group : {RankGroup::Tensor, RankGroup::Data, RankGroup::Expert, RankGroup::ExpertData}) {
      CHECK(within_node(g, group));
    }
    CHECK_FALSE(pipeline_crosses_nodes(g, 0, 1));
  }
  CHECK(same_links(a, b));
  // Without data parallelism the two orders number the ranks alike.
  CHECK(same_links(grid(4, 8, 1, 8, RankOrder::TpDpPp), grid(4, 8, 1, 8, RankOrder::TpPpDp)));
}

TEST_CASE("Mixtral's pp 8 x ep 8 on 64 GPUs: the pipeline or the experts take the network") {
  // tp 1, dp 8, ep 8. tp-dp-pp: rank = d + 8p, an expert group {8p .. 8p + 7} is one node and
  // pipeline neighbours are 8 apart. tp-pp-dp: rank = p + 8d, the pipeline is one node and the
  // expert group {p, p + 8, ..., p + 56} spans all eight.
  const RankGrid megatron = grid(1, 8, 8, 8, RankOrder::TpDpPp, 8);
  CHECK(within_node(megatron, RankGroup::Expert));
  for (int d = 0; d < 7; ++d) CHECK(pipeline_crosses_nodes(megatron, d, d + 1));
  const RankGrid stages = grid(1, 8, 8, 8, RankOrder::TpPpDp, 8);
  CHECK_FALSE(within_node(stages, RankGroup::Expert));
  for (int d = 0; d < 7; ++d) CHECK_FALSE(pipeline_crosses_nodes(stages, d, d + 1));
  // ep 2 out of dp 8 under tp-dp-pp: expert groups {2k, 2k + 1}, the experts' replicas {e, e + 2,
  // e + 4, e + 6} + 8p, all inside a node.
  const RankGrid pairs = grid(1, 8, 8, 8, RankOrder::TpDpPp, 2);
  CHECK(within_node(pairs, RankGroup::Expert));
  CHECK(within_node(pairs, RankGroup::ExpertData));
}

TEST_CASE("the closed forms agree with every rank enumerated, over small grids") {
  int grids = 0;
  for (RankOrder order : {RankOrder::TpDpPp, RankOrder::TpPpDp}) {
    for (int tp = 1; tp <= 4; ++tp) {
      for (int pp = 1; pp <= 5; ++pp) {
        for (int dp = 1; dp <= 6; ++dp) {
          for (int ep = 1; ep <= dp; ++ep) {
            if (dp % ep != 0) continue;
            for (int node : {1, 2, 3, 4, 5, 6, 8, 16}) {
              const RankGrid g = grid(tp, pp, dp, node, order, ep);
              ++grids;
              for (int t = 0; t < tp; ++t) {
                for (int d = 0; d < dp; ++d) {
                  for (int p = 0; p < pp; ++p) REQUIRE(rank_of(g, t, d, p) == rank_by_hand(g, t, d, p));
                }
              }
              for (RankGroup group : {RankGroup::Tensor, RankGroup::Data, RankGroup::Expert, RankGroup::ExpertData}) {
                INFO("tp ", tp, " pp ", pp, " dp ", dp, " ep ", ep, " node ", node, " group ", int(group));
                REQUIRE(within_node(g, group) == all_within_node_by_hand(g, group));
              }
              for (int a = 0; a < pp; ++a) {
                for (int b = 0; b < pp; ++b) {
                  INFO("tp ", tp, " pp ", pp, " dp ", dp, " node ", node, " devices ", a, " ", b);
                  REQUIRE(pipeline_crosses_nodes(g, a, b) == crosses_by_hand(g, a, b));
                }
              }
            }
          }
        }
      }
    }
  }
  CHECK(grids > 1000);
  CHECK(test::error_of([] {
          (void)within_node(grid(1, 1, 4, 8, RankOrder::TpDpPp, 3), RankGroup::Data);
        }).starts_with("--etp 1 x --ep 3: must divide the tp x cp x dp = 4 ranks"));
}

TEST_CASE("tp 2, cp 2, dp 2, pp 2: every group enumerated, as Megatron's tp-cp-ep-dp-pp numbers them") {
  // rank = t + 2c + 4d + 8p (Megatron's RankGenerator, order "tp-cp-ep-dp-pp" with ep 1): 16 ranks.
  RankGrid g = grid(2, 2, 2, 16, RankOrder::TpDpPp);
  g.cp = 2;
  CHECK(g.world() == 16);
  CHECK(rank_of(g, 1, 1, 1, 1) == 1 + 2 + 4 + 8);
  using Ranks = std::vector<long>;
  // Rank 5 is t 1, c 0, d 1, p 0.
  CHECK(group_members(g, RankGroup::Tensor, 5) == Ranks{4, 5});
  CHECK(group_members(g, RankGroup::Context, 5) == Ranks{5, 7});
  CHECK(group_members(g, RankGroup::Data, 5) == Ranks{1, 5});
  CHECK(group_members(g, RankGroup::DataContext, 5) == Ranks{1, 3, 5, 7});  // the gradients' reduction
  CHECK(group_members(g, RankGroup::Tensor, 10) == Ranks{10, 11});
  CHECK(group_members(g, RankGroup::Context, 10) == Ranks{8, 10});
  CHECK(group_members(g, RankGroup::DataContext, 10) == Ranks{8, 10, 12, 14});
  // The experts fold over each stage's 8 ranks, etp (= tp 2) innermost, then ep 2, then edp 2:
  // expert rank = et + 2e + 4ed + 8p.
  g.ep = 2;
  CHECK(group_members(g, RankGroup::ExpertTensor, 5) == Ranks{4, 5});
  CHECK(group_members(g, RankGroup::Expert, 5) == Ranks{5, 7});
  CHECK(group_members(g, RankGroup::ExpertData, 5) == Ranks{1, 5});
  // On 4-GPU nodes the cp pairs {c0, c1} stay in a node, the dp·cp quartets {0, 2, 4, 6} do not.
  g.gpus_per_node = 4;
  CHECK(within_node(g, RankGroup::Context));
  CHECK_FALSE(within_node(g, RankGroup::DataContext));
  CHECK(within_node(g, RankGroup::Expert));
  CHECK_FALSE(within_node(g, RankGroup::ExpertData));
  // Under tp-pp-dp (rank = t + 2c + 4p + 8d) the dp·cp group of rank 0 is {0, 2, 8, 10}.
  RankGrid s = grid(2, 2, 2, 16, RankOrder::TpPpDp);
  s.cp = 2;
  CHECK(group_members(s, RankGroup::DataContext, 0) == Ranks{0, 2, 8, 10});
  CHECK(rank_of(s, 0, 0, 0, 1) == 4);
  s.gpus_per_node = 8;
  CHECK_FALSE(within_node(s, RankGroup::DataContext));
  CHECK(within_node(s, RankGroup::Context));
}

TEST_CASE("within_node's closed form agrees with every group enumerated, context and folded experts included") {
  for (RankOrder order : {RankOrder::TpDpPp, RankOrder::TpPpDp}) {
    for (int tp = 1; tp <= 2; ++tp) {
      for (int cp = 1; cp <= 3; ++cp) {
        for (int pp = 1; pp <= 3; ++pp) {
          for (int dp = 1; dp <= 4; ++dp) {
            for (int etp = 1; etp <= 2; ++etp) {
              for (int ep = 1; ep <= 4; ++ep) {
                RankGrid g = grid(tp, pp, dp, 1, order, ep);
                g.cp = cp;
                g.etp = etp;
                if ((long(tp) * cp * dp) % (etp * ep) != 0) continue;
                if (order == RankOrder::TpPpDp && ep > 1 && (cp > 1 || etp != tp || dp % ep != 0)) continue;
                for (RankGroup kind : kRankGroups) {
                  // Each group's least and greatest rank, from its members enumerated.
                  std::vector<std::pair<long, long>> spans;
                  for (long r = 0; r < g.world(); ++r) {
                    const std::vector<long> m = group_members(g, kind, r);
                    spans.emplace_back(m.front(), m.back());
                  }
                  for (int node = 1; node <= 8; ++node) {
                    g.gpus_per_node = node;
                    bool inside = true;
                    for (const auto& [lo, hi] : spans) inside = inside && lo / node == hi / node;
                    CHECK_MESSAGE(within_node(g, kind) == inside, "tp ", tp, " cp ", cp, " pp ", pp, " dp ", dp,
                                  " etp ", etp, " ep ", ep, " node ", node, " kind ", int(kind));
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("folding refuses what it cannot lay out, by name") {
  RankGrid g = grid(2, 8, 16, 8, RankOrder::TpDpPp, 32);  // Qwen3-235B-A22B: tp 2, pp 8, dp 16, ep 32
  CHECK(test::error_of([&] { check_rank_grid(g); }) ==
        "--etp 2 x --ep 32: must divide the tp x cp x dp = 32 ranks of a pipeline stage, over which the expert "
        "groups are folded");
  g.etp = 1;  // as it runs: etp 1, ep 32 over the stage's 32 ranks, edp 1
  check_rank_grid(g);
  CHECK(g.expert_dp() == 1);
  CHECK(group_members(g, RankGroup::Expert, 33).size() == 32);
  CHECK(group_members(g, RankGroup::Expert, 33).front() == 32);  // stage 1's ranks 32..63
  CHECK_FALSE(within_node(g, RankGroup::Expert));                // 32 ranks: four 8-GPU nodes
  RankGrid s = grid(2, 2, 4, 8, RankOrder::TpPpDp, 2);
  s.cp = 2;
  CHECK(test::error_of([&] { check_rank_grid(s); }).starts_with("--rank-order tp-pp-dp: expert parallelism"));
}
