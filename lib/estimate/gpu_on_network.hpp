#pragma once
// A card of the GPU table on another network than the table's (`--network`): a cluster of the
// same cards wired with fewer, slower or faster network cards. Only the network between NVLink
// domains changes; the card, its NVLink and its host link stay the table's.
#include <memory>
#include <string>

#include "estimate/gpu_catalog.hpp"

namespace pipeplan {

/// The card and the name its network's LinkSpec views, owned together, so that `spec` can be
/// handed on by pointer as a table entry is.
struct GpuOnNetwork {
  GpuSpec spec;
  std::string network_name;
};

/// `gpu` with `network` as its inter_node link, named `name` (the LinkSpec's own name is not
/// read: `network_at` leaves it to the caller).
[[nodiscard]] std::shared_ptr<const GpuOnNetwork> gpu_on_network(const GpuSpec& gpu, const LinkSpec& network,
                                                                 std::string name);

}  // namespace pipeplan
