#pragma once
// Where a job's ranks sit on its nodes (docs/costs.md, "Placing ranks on nodes"): the order in
// which Megatron-LM's rank generator numbers tensor, data and pipeline parallelism, innermost
// first, and for each group whether its ranks share one node (its own links: NVLink, PCIe) or
// span several (the network). Node k holds ranks k·G to k·G + G - 1 (G GPUs a node).
#include <optional>
#include <string_view>

#include "model/enum_table.hpp"

namespace pipeplan {

/// The order ranks are numbered in, innermost (fastest varying) first. Expert parallelism is the
/// inner part of data parallelism in both (Megatron carves the expert groups out of the
/// data-parallel ranks): ep consecutive data-parallel ranks form an expert-parallel group.
enum class RankOrder : unsigned char {
  TpDpPp,  ///< Megatron-LM's default "tp-cp-ep-dp-pp": tensor, then data, then pipeline parallelism
  TpPpDp,  ///< Megatron-LM's --use-tp-pp-dp-mapping: pipeline neighbours next to each other
};

inline constexpr EnumTable<RankOrder, 2> kRankOrders = {{
    {"tp-dp-pp", RankOrder::TpDpPp, "Megatron-LM's default order: data-parallel replicas side by side"},
    {"tp-pp-dp", RankOrder::TpPpDp, "Megatron-LM's --use-tp-pp-dp-mapping: a pipeline's stages side by side"},
}};

/// "tp-dp-pp", "tp-pp-dp", and back; nullopt for other names.
[[nodiscard]] std::optional<RankOrder> rank_order_named(std::string_view name);
[[nodiscard]] std::string_view rank_order_name(RankOrder order);

/// A job of tp x pp x dp ranks (dp a multiple of ep) on nodes of `gpus_per_node`.
struct RankGrid {
  int tp = 1, pp = 1, dp = 1, ep = 1;
  int gpus_per_node = 8;
  RankOrder order = RankOrder::TpDpPp;

  [[nodiscard]] long world() const { return long(tp) * pp * dp; }
};

/// The global rank of tensor-parallel rank `t` of data-parallel replica `d` at pipeline device `p`.
[[nodiscard]] long rank_of(const RankGrid& grid, int t, int d, int p);

/// The groups whose collectives pipeplan prices.
enum class RankGroup : unsigned char {
  Tensor,      ///< tp ranks: a layer's all-gathers and reduce-scatters
  Data,        ///< dp ranks at one pipeline device: the gradients' reduction
  Expert,      ///< ep consecutive data-parallel ranks: a mixture of experts' all-to-alls
  ExpertData,  ///< dp / ep ranks holding the same experts: the expert gradients' reduction
};

/// Whether every group of this kind, over the whole job, lies within one node.
[[nodiscard]] bool within_node(const RankGrid& grid, RankGroup group);

/// Whether any pipeline replica (any tensor-parallel rank of any data-parallel replica) puts
/// pipeline devices `device` and `other` on different nodes: their transfers then take the
/// network, and the slowest replica sets the step. False when device == other.
[[nodiscard]] bool pipeline_crosses_nodes(const RankGrid& grid, int device, int other);

/// Whether `a` keeps within a node every group of RankGroup that `b` keeps within a node, and
/// every pair of neighbouring pipeline devices (d, d + 1), and the last and the first, that `b`
/// does: what the schedules' placements (looped, the V) join. Then no cost of a profile under
/// `a` exceeds the same cost under `b`.
[[nodiscard]] bool links_as_fast(const RankGrid& a, const RankGrid& b);

/// links_as_fast both ways: profiles under the two are the same.
[[nodiscard]] bool same_links(const RankGrid& a, const RankGrid& b);

}  // namespace pipeplan
