#include "estimate/gpu_on_network.hpp"

#include <utility>

namespace pipeplan {

std::shared_ptr<const GpuOnNetwork> gpu_on_network(const GpuSpec& gpu, const LinkSpec& network, std::string name) {
  auto card = std::make_shared<GpuOnNetwork>(GpuOnNetwork{gpu, std::move(name)});
  card->spec.inter_node = network;
  // The name is viewed where the card now lives, so it stays valid as long as the card.
  card->spec.inter_node.name = card->network_name;
  return card;
}

}  // namespace pipeplan
