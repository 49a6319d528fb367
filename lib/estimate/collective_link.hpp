#pragma once
// The link a ring collective takes over a group of ranks (docs/costs.md, "Collectives").
#include "estimate/gpu_catalog.hpp"
#include "estimate/rank_placement.hpp"

namespace pipeplan {

/// Within one node (NVLink domain), the node's link. Across nodes, NCCL runs several rings (its
/// channels) side by side and each crosses between nodes on a different GPU's network card, so
/// the n members a node holds send over n cards at once: the bus bandwidth is n times a card's
/// share of the network, up to what the node's own link carries in a ring (whichever is less),
/// at the network's latency. One member a node (a data-parallel group of tp = 8 ranks on
/// 8-GPU nodes) leaves one card: the network link as it is.
[[nodiscard]] LinkSpec collective_link(const GpuSpec& gpu, const RankGrid& grid, RankGroup group);

}  // namespace pipeplan
