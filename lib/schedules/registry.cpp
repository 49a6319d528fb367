#include <algorithm>
#include <array>
#include <string>

#include "model/closest_names.hpp"
#include "model/name_fold.hpp"

#include "schedules/generator.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

namespace {

const std::array kGenerators = {
    Generator{.name = "gpipe",
              .description = "GPipe (Huang et al. 2019): every forward, then every fused backward",
              .constraints = "M >= 1",
              .generate = generate_gpipe,
              .candidate_of = CandidateOf::SingleChunk,
              .candidate_rank = 6},
    Generator{.name = "1f1b",
              .description = "1F1B (Narayanan et al. 2021, Megatron-LM): warm-up, then one F and one BW at a time",
              .constraints = "M >= 1",
              .generate = generate_1f1b,
              .candidate_of = CandidateOf::SingleChunk,
              .candidate_rank = 3},
    Generator{
        .name = "zbh1",
        .description = "ZB-H1 (Qi et al. 2024): 1F1B with split B and W; device d holds d W back for the cool-down",
        .constraints = "M >= 1",
        .generate = generate_zbh1,
        .candidate_of = CandidateOf::SingleChunk,
        .candidate_rank = 1},
    Generator{
        .name = "zbh2",
        .description = "ZB-H2 (Qi et al. 2024): 2(P-1-d) warm-up forwards, W lagging 2d; no bubble inside the span",
        .constraints = "M >= 2P-1",
        .generate = generate_zbh2,
        .min_microbatches = {2, -1},
        .candidate_of = CandidateOf::SingleChunk,
        .candidate_rank = 2},
    Generator{.name = "eager-1f1b",
              .description = "Eager 1F1B (PaddlePaddle): 2(P-d)-1 warm-up forwards so transfers overlap compute",
              .constraints = "M >= 2P-1",
              .generate = generate_eager_1f1b,
              .min_microbatches = {2, -1},
              .candidate_of = CandidateOf::SingleChunk,
              .candidate_rank = 4},
    Generator{.name = "interleaved",
              .description = "Interleaved 1F1B (Megatron-LM VPP; PyTorch's rounds): V chunks per device, --group N for "
                             "Megatron's groups",
              .constraints = "V >= 1 (2), M < P or floor(M/P) | M",
              .generate = generate_interleaved,
              .min_chunks = 1,
              .max_chunks = 64,
              .default_chunks = 2,
              .pytorch_rounds = true,
              .takes_group = true,
              .candidate_of = CandidateOf::Looped,
              .candidate_rank = 2},
    Generator{.name = "interleaved-zb",
              .description = "Interleaved zero bubble (PyTorch ZB1P): interleaved 1F1B with split B and W; device d "
                             "holds d W back",
              .constraints = "V >= 1 (2), M < P or floor(M/P) | M",
              .generate = generate_interleaved_zero_bubble,
              .min_chunks = 1,
              .max_chunks = 64,
              .default_chunks = 2,
              .pytorch_rounds = true,
              .candidate_of = CandidateOf::Looped,
              .candidate_rank = 1},
    Generator{.name = "looped-bfs",
              .description = "Looped BFS (PyTorch): all forwards chunk by chunk, then all backwards in reverse",
              .constraints = "V >= 1 (2)",
              .generate = generate_looped_bfs,
              .min_chunks = 1,
              .max_chunks = 64,
              .default_chunks = 2,
              .candidate_of = CandidateOf::Looped,
              .candidate_rank = 3},
    Generator{
        .name = "zbv",
        .description = "ZB-V (Qi et al. 2024): 2 chunks per device in a V, split backward, no bubble when F = B = W",
        .constraints = "V = 2",
        .generate = generate_zbv,
        .min_chunks = 2,
        .max_chunks = 2,
        .default_chunks = 2,
        .candidate_of = CandidateOf::Vee,
        .candidate_rank = 1},
    Generator{
        .name = "v-half",
        .description = "V-Half (Qi et al. 2024, controllable memory): the V with half of ZB-V's activation memory",
        .constraints = "V = 2",
        .generate = generate_v_half,
        .min_chunks = 2,
        .max_chunks = 2,
        .default_chunks = 2,
        .candidate_of = CandidateOf::Vee,
        .candidate_rank = 2},
    Generator{
        .name = "v-min",
        .description = "V-Min (Qi et al. 2024, controllable memory): the V with a third of ZB-V's activation memory",
        .constraints = "V = 2",
        .generate = generate_v_min,
        .min_chunks = 2,
        .max_chunks = 2,
        .default_chunks = 2,
        .candidate_of = CandidateOf::Vee,
        .candidate_rank = 3},
    Generator{
        .name = "dualpipev",
        .description = "DualPipeV (DeepSeek): the V with each forward overlapped with the other chunk's backward (FB)",
        .constraints = "V = 2, M >= 2P",
        .generate = generate_dualpipev,
        .min_chunks = 2,
        .max_chunks = 2,
        .default_chunks = 2,
        .min_microbatches = {2, 0}},
    Generator{.name = "zb",
              .description =
                  "Automatic zero bubble (Qi et al. 2024, section 3): the paper's heuristic, greedy passes and "
                  "local search under --memory-limit",
              .constraints = "costs, --memory-limit, V >= 1 (1)",
              .generate = generate_zb,
              .min_chunks = 1,
              .max_chunks = 64,
              .memory_limit = MemoryLimitUse::Required,
              .uses_costs = true},
    Generator{.name = "zb-1p",
              .description = "zb under the memory of P micro-batches per device (1F1B's device 0)",
              .constraints = "costs, V >= 1 (1)",
              .generate = generate_zb_1p,
              .min_chunks = 1,
              .max_chunks = 64,
              .uses_costs = true},
    Generator{.name = "zb-2p",
              .description = "zb under the memory of 2P micro-batches per device",
              .constraints = "costs, V >= 1 (1)",
              .generate = generate_zb_2p,
              .min_chunks = 1,
              .max_chunks = 64,
              .uses_costs = true},
    Generator{.name = "zbv-auto",
              .description = "zb on the V-shaped placement, 2 chunks per device; limit defaults to ZB-V's",
              .constraints = "costs, V = 2",
              .generate = generate_zbv_auto,
              .min_chunks = 2,
              .max_chunks = 2,
              .default_chunks = 2,
              .memory_limit = MemoryLimitUse::Optional,
              .uses_costs = true},
    Generator{.name = "zbh1-paddle",
              .description = "ZB-H1 as PaddlePaddle PR 62865 ships it: fused BW in the steady state, first d backwards "
                             "split",
              .constraints = "M >= P",
              .generate = generate_zbh1_paddle,
              .min_microbatches = {1, 0},
              .candidate_of = CandidateOf::SingleChunk,
              .candidate_rank = 5},
};

}  // namespace

std::string MicrobatchMinimum::text() const {
  if (per_device == 0) return std::to_string(plus);
  std::string out = (per_device == 1 ? "" : std::to_string(per_device)) + "P";
  if (plus != 0) out += (plus > 0 ? "+" : "-") + std::to_string(plus > 0 ? plus : -plus);
  return out;
}

int Generator::chunks_for(int chunks) const {
  return chunks == 0 ? default_chunks : std::clamp(chunks, min_chunks, max_chunks);
}

std::string_view memory_limit_use_name(MemoryLimitUse use) {
  switch (use) {
    case MemoryLimitUse::None:
      return "none";
    case MemoryLimitUse::Optional:
      return "optional";
    case MemoryLimitUse::Required:
      return "required";
  }
  return "none";
}

std::span<const Generator> generators() {
  return kGenerators;
}

std::vector<const Generator*> candidates_of(CandidateOf search) {
  std::vector<const Generator*> out;
  for (const Generator& g : kGenerators) {
    if (g.candidate_of == search) out.push_back(&g);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Generator* a, const Generator* b) { return a->candidate_rank < b->candidate_rank; });
  return out;
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
