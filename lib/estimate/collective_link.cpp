#include "estimate/collective_link.hpp"

#include <algorithm>

namespace pipeplan {

LinkSpec collective_link(const GpuSpec& gpu, const RankGrid& grid, RankGroup group) {
  if (within_node(grid, group)) return gpu.intra_node;
  const long cards = fewest_members_per_node(grid, group);
  if (cards <= 1) return gpu.inter_node;
  const double network = double(cards) * gpu.inter_node.bandwidth_gb_per_s * gpu.inter_node.collective_efficiency;
  const double node = gpu.intra_node.bandwidth_gb_per_s * gpu.intra_node.collective_efficiency;
  // Efficiencies are folded into the bandwidth: the result is already a bus bandwidth.
  return {
      .name = network < node ? "the network, several cards a node" : "the node's link (the network's cards outpace it)",
      .bandwidth_gb_per_s = std::min(network, node),
      .latency_ms = gpu.inter_node.latency_ms,
      .collective_efficiency = 1.0};
}

}  // namespace pipeplan
