#include "calibrate/card_match.hpp"

#include <cmath>
#include <cstdlib>

namespace pipeplan {

namespace {

// "PCIe" (CUDA spells it "PCIe" for H100 and "PCIE" for A100's "A100-PCIE-40GB") or "NVL" as a
// word of its own ("H100 NVL", "H200 NVL"; not "NVLink").
bool pcie_or_nvl(const std::string& name) {
  if (name.find("PCIe") != std::string::npos || name.find("PCIE") != std::string::npos) return true;
  const std::size_t at = name.find("NVL");
  return at != std::string::npos && (at + 3 == name.size() || name[at + 3] == ' ');
}

// Where `word` begins a word of `name` ("H100" in "NVIDIA H100 80GB HBM3"), not inside another
// one ("H200" in "NVIDIA GH200 480GB", "B200" in "NVIDIA GB200").
enum class Found { No, Word, Inside };
Found find_word(const std::string& name, std::string_view word) {
  Found found = Found::No;
  for (std::size_t at = name.find(word); at != std::string::npos; at = name.find(word, at + 1)) {
    if (at == 0 || name[at - 1] == ' ') return Found::Word;
    found = Found::Inside;
  }
  return found;
}

// A device whose memory is this far from the row's is another card of the same name (the DGX
// Station's GB300: about 251 GiB against the NVL72's 277.5); the SXM rows' own devices report
// their memory within 1% of the row (nvidia-smi's figures are the rows').
constexpr double kMemoryTolerance = 0.05;

}  // namespace

CardMatch match_card(const std::string& device_name, std::size_t memory_bytes, const std::string& asked) {
  if (!asked.empty()) return {&gpu_named(asked), ""};
  const auto unlike = [&](std::string_view entry) {
    return CardMatch{nullptr, device_name + " is not the table's " + std::string(entry) +
                                  " (an SXM card): its peaks and links differ; give --gpu to use an entry anyway"};
  };
  // The rows whose CUDA word is a word of the name, the nearest in memory first; a word found
  // only inside another (GH200's H200) names the near row for the note.
  const GpuSpec* best = nullptr;
  const GpuSpec* near = nullptr;
  double best_off = 0;
  for (const GpuSpec& g : gpu_catalog()) {
    const Found found = find_word(device_name, g.cuda_name);
    if (found == Found::Inside && near == nullptr) near = &g;
    if (found != Found::Word) continue;
    const double off = std::abs(double(memory_bytes) / double(g.memory_bytes) - 1);
    if (best == nullptr || off < best_off) {
      best = &g;
      best_off = off;
    }
  }
  if (best == nullptr) return near != nullptr ? unlike(near->name) : CardMatch{};
  if (pcie_or_nvl(device_name) || best_off > kMemoryTolerance) return unlike(best->name);
  return {best, ""};
}

}  // namespace pipeplan
