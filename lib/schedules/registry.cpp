#include <algorithm>
#include <array>

#include "model/closest_names.hpp"
#include "model/name_fold.hpp"

#include "schedules/generator.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

namespace {

const std::array kGenerators = {
    Generator{"gpipe", "GPipe (Huang et al. 2019): every forward, then every fused backward", "M >= 1", generate_gpipe},
    Generator{"1f1b", "1F1B (Narayanan et al. 2021, Megatron-LM): warm-up, then one F and one BW at a time", "M >= 1",
              generate_1f1b},
    Generator{"zbh1", "ZB-H1 (Qi et al. 2024): 1F1B with split B and W; device d holds d W back for the cool-down",
              "M >= 1", generate_zbh1},
    Generator{"zbh2", "ZB-H2 (Qi et al. 2024): 2(P-1-d) warm-up forwards, W lagging 2d; no bubble inside the span",
              "M >= 2P-1", generate_zbh2},
    Generator{"eager-1f1b", "Eager 1F1B (PaddlePaddle): 2(P-d)-1 warm-up forwards so transfers overlap compute",
              "M >= 2P-1", generate_eager_1f1b},
    Generator{
        "interleaved",
        "Interleaved 1F1B (Megatron-LM VPP; PyTorch's rounds): V chunks per device, --group N for Megatron's groups",
        "V >= 1 (2), M < P or floor(M/P) | M", generate_interleaved, 1, 64, 2, MemoryLimitUse::None, false, true},
    Generator{"interleaved-zb",
              "Interleaved zero bubble (PyTorch ZB1P): interleaved 1F1B with split B and W; device d holds d W back",
              "V >= 1 (2), M < P or floor(M/P) | M", generate_interleaved_zero_bubble, 1, 64, 2},
    Generator{"looped-bfs", "Looped BFS (PyTorch): all forwards chunk by chunk, then all backwards in reverse",
              "V >= 1 (2)", generate_looped_bfs, 1, 64, 2},
    Generator{"zbv", "ZB-V (Qi et al. 2024): 2 chunks per device in a V, split backward, no bubble when F = B = W",
              "V = 2", generate_zbv, 2, 2, 2},
    Generator{"v-half", "V-Half (Qi et al. 2024, controllable memory): the V with half of ZB-V's activation memory",
              "V = 2", generate_v_half, 2, 2, 2},
    Generator{"v-min", "V-Min (Qi et al. 2024, controllable memory): the V with a third of ZB-V's activation memory",
              "V = 2", generate_v_min, 2, 2, 2},
    Generator{"dualpipev",
              "DualPipeV (DeepSeek): the V with each forward overlapped with the other chunk's backward (FB)",
              "V = 2, M >= 2P", generate_dualpipev, 2, 2, 2},
    Generator{"zb",
              "Automatic zero bubble (Qi et al. 2024, section 3): the paper's heuristic, greedy passes and local "
              "search under --memory-limit",
              "costs, --memory-limit, V >= 1 (1)", generate_zb, 1, 64, 1, MemoryLimitUse::Required, true},
    Generator{"zb-1p", "zb under the memory of P micro-batches per device (1F1B's device 0)", "costs, V >= 1 (1)",
              generate_zb_1p, 1, 64, 1, MemoryLimitUse::None, true},
    Generator{"zb-2p", "zb under the memory of 2P micro-batches per device", "costs, V >= 1 (1)", generate_zb_2p, 1, 64,
              1, MemoryLimitUse::None, true},
    Generator{"zbv-auto", "zb on the V-shaped placement, 2 chunks per device; limit defaults to ZB-V's", "costs, V = 2",
              generate_zbv_auto, 2, 2, 2, MemoryLimitUse::Optional, true},
    Generator{"zbh1-paddle",
              "ZB-H1 as PaddlePaddle PR 62865 ships it: fused BW in the steady state, first d backwards split",
              "M >= P", generate_zbh1_paddle},
};

}  // namespace

int Generator::chunks_for(int chunks) const {
  return chunks == 0 ? default_chunks : std::clamp(chunks, min_chunks, max_chunks);
}

std::span<const Generator> generators() {
  return kGenerators;
}

std::string automatic_generator_names() {
  std::string names;
  for (const Generator& g : kGenerators) {
    if (!g.uses_costs) continue;
    if (!names.empty()) names += ", ";
    names += g.name;
  }
  return names;
}

const Generator* find_generator(std::string_view name) {
  auto it = std::find_if(kGenerators.begin(), kGenerators.end(),
                         [name](const Generator& g) { return same_name(g.name, name); });
  return it == kGenerators.end() ? nullptr : &*it;
}

std::vector<std::string> closest_generator_names(std::string_view name, std::size_t count) {
  std::vector<std::string_view> names;
  for (const Generator& g : kGenerators) names.push_back(g.name);
  return closest_names(name, names, count);
}

}  // namespace pipeplan
