#pragma once
// Where a job's ranks sit on its nodes (docs/costs.md, "Placing ranks on nodes"): the order in
// which Megatron-LM's rank generator numbers tensor, context, data and pipeline parallelism,
// innermost first, the expert groups folded over each stage, and for each group whether its ranks
// share one node (its own links: NVLink, PCIe) or span several (the network). Node k holds ranks
// k·G to k·G + G - 1 (G GPUs a node).
#include <optional>
#include <string_view>
#include <vector>

#include "model/enum_table.hpp"

namespace pipeplan {

/// The order ranks are numbered in, innermost (fastest varying) first. Context parallelism sits
/// between tensor and data parallelism in both, as in Megatron's "tp-cp-ep-dp-pp". The expert
/// groups are laid over the tp·cp·dp ranks of each pipeline stage by a second numbering, Megatron's
/// parallel folding "tp-ep-dp-pp" with expert tensor parallelism innermost: etp·ep·edp = tp·cp·dp.
enum class RankOrder : unsigned char {
  TpDpPp,  ///< Megatron-LM's default "tp-cp-ep-dp-pp": tensor, context, data, then pipeline parallelism
  TpPpDp,  ///< Megatron-LM's --use-tp-pp-dp-mapping: pipeline neighbours next to each other
};

inline constexpr EnumTable<RankOrder, 2> kRankOrders = {{
    {"tp-dp-pp", RankOrder::TpDpPp, "Megatron-LM's default order: data-parallel replicas side by side"},
    {"tp-pp-dp", RankOrder::TpPpDp, "Megatron-LM's --use-tp-pp-dp-mapping: a pipeline's stages side by side"},
}};

/// "tp-dp-pp", "tp-pp-dp", and back; nullopt for other names.
[[nodiscard]] std::optional<RankOrder> rank_order_named(std::string_view name);
[[nodiscard]] std::string_view rank_order_name(RankOrder order);

/// A job of tp x cp x pp x dp ranks on nodes of `gpus_per_node`, whose experts (ep of them per
/// group, each etp-way tensor-parallel) fold over each stage's tp·cp·dp ranks: etp·ep must divide
/// tp·cp·dp, the rest being the expert data parallelism edp.
struct RankGrid {
  int tp = 1, pp = 1, dp = 1, ep = 1;
  int gpus_per_node = 8;
  RankOrder order = RankOrder::TpDpPp;
  int cp = 1;
  int etp = 0;  ///< 0: equal to tp (Megatron's default)

  [[nodiscard]] long world() const { return long(tp) * cp * pp * dp; }
  [[nodiscard]] int expert_tp() const { return etp > 0 ? etp : tp; }
  /// The ranks holding the same experts at one stage: tp·cp·dp / (etp·ep).
  [[nodiscard]] int expert_dp() const { return int(long(tp) * cp * dp / (long(expert_tp()) * ep)); }
};

/// The global rank of tensor-parallel rank `t`, context-parallel rank `c` of data-parallel
/// replica `d` at pipeline device `p`. Throws Error for a grid check_rank_grid refuses.
[[nodiscard]] long rank_of(const RankGrid& grid, int t, int c, int d, int p);
/// The same with c = 0.
[[nodiscard]] long rank_of(const RankGrid& grid, int t, int d, int p);

/// Throws Error naming --etp, --ep, --cp or --rank-order when the grid cannot be laid out: any
/// size below 1, etp·ep not dividing tp·cp·dp, or under tp-pp-dp expert parallelism with cp > 1
/// or etp other than tp (Megatron refuses expert parallelism under that mapping; pipeplan keeps
/// the experts' groups inside data parallelism there, as before folding).
void check_rank_grid(const RankGrid& grid);

/// The groups whose collectives pipeplan prices.
enum class RankGroup : unsigned char {
  Tensor,        ///< tp ranks: a layer's all-gathers and reduce-scatters
  Context,       ///< cp ranks: ring attention's K and V exchange (context_parallel.hpp)
  Data,          ///< dp ranks at one pipeline device and context-parallel rank
  DataContext,   ///< dp·cp ranks: the dense gradients' reduction and the optimizer's shards
  Expert,        ///< ep ranks, etp apart inside the stage: a mixture of experts' all-to-alls
  ExpertData,    ///< edp ranks holding the same experts: the expert gradients' reduction
  ExpertTensor,  ///< etp ranks: the gather of the routed tokens beside the sharded experts
};

inline constexpr RankGroup kRankGroups[] = {RankGroup::Tensor,      RankGroup::Context, RankGroup::Data,
                                            RankGroup::DataContext, RankGroup::Expert,  RankGroup::ExpertData,
                                            RankGroup::ExpertTensor};

/// Whether every group of this kind, over the whole job, lies within one node.
[[nodiscard]] bool within_node(const RankGrid& grid, RankGroup group);

/// The fewest members the group of kind `group` holding rank 0 has on one node that it touches
/// (every group of a kind is that one moved by a whole number of its own period): a ring
/// collective across nodes crosses on each of those members' own network links at once
/// (collective_link.hpp). The group's size for a group within one node.
[[nodiscard]] long fewest_members_per_node(const RankGrid& grid, RankGroup group);

/// The members of the group of kind `group` that holds `rank`, ascending: from the digits of the
/// numbering (every coordinate of `group` varied, the others kept). For tests and reports.
[[nodiscard]] std::vector<long> group_members(const RankGrid& grid, RankGroup group, long rank);

/// Whether any pipeline replica (any tensor-parallel rank of any data-parallel replica) puts
/// pipeline devices `device` and `other` on different nodes: their transfers then take the
/// network, and the slowest replica sets the step. False when device == other.
[[nodiscard]] bool pipeline_crosses_nodes(const RankGrid& grid, int device, int other);

/// Whether `a` keeps within a node every group of RankGroup that `b` keeps within a node, and
/// every pair of neighbouring pipeline devices (d, d + 1), and the last and the first, that `b`
/// does: what the schedules' placements (looped, the V) join, and every group of a kind that
/// crosses nodes under both has as many members a node under `a` as under `b` at least. Then no
/// cost of a profile under `a` exceeds the same cost under `b`.
[[nodiscard]] bool links_as_fast(const RankGrid& a, const RankGrid& b);

/// links_as_fast both ways: profiles under the two are the same.
[[nodiscard]] bool same_links(const RankGrid& a, const RankGrid& b);

}  // namespace pipeplan
