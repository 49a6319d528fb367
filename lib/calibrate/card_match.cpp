#include "calibrate/card_match.hpp"

namespace pipeplan {

namespace {

bool has(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

// "PCIe" (CUDA spells it "PCIe" for H100 and "PCIE" for A100's "A100-PCIE-40GB") or "NVL" as a
// word of its own ("H100 NVL", "H200 NVL"; not "NVLink").
bool pcie_or_nvl(const std::string& name) {
  if (has(name, "PCIe") || has(name, "PCIE")) return true;
  const std::size_t at = name.find("NVL");
  return at != std::string::npos && (at + 3 == name.size() || name[at + 3] == ' ');
}

}  // namespace

CardMatch match_card(const std::string& device_name, std::size_t memory_bytes, const std::string& asked) {
  if (!asked.empty()) return {&gpu_named(asked), ""};
  const auto unlike = [&](const char* entry) {
    return CardMatch{nullptr, device_name + " is not the table's " + entry +
                                  " (an SXM card): its peaks and links differ; give --gpu to use an entry anyway"};
  };
  // Blackwell: "GB" first, since "NVIDIA GB200" holds "B200". The DGX Station's GB300 reports
  // about 251 GiB where the NVL72's reports 277.5 GiB, and has no 72-GPU NVLink domain.
  if (has(device_name, "GB300")) {
    return memory_bytes < (std::size_t{270} << 30) ? unlike("gb300") : CardMatch{&gpu_named("gb300"), ""};
  }
  if (has(device_name, "GB200")) return {&gpu_named("gb200"), ""};
  if (has(device_name, "B300")) return pcie_or_nvl(device_name) ? unlike("b300") : CardMatch{&gpu_named("b300"), ""};
  if (has(device_name, "B200")) return pcie_or_nvl(device_name) ? unlike("b200") : CardMatch{&gpu_named("b200"), ""};
  if (has(device_name, "H800")) return pcie_or_nvl(device_name) ? unlike("h800") : CardMatch{&gpu_named("h800"), ""};
  if (has(device_name, "GH200")) return unlike("h200");
  if (has(device_name, "H200")) return pcie_or_nvl(device_name) ? unlike("h200") : CardMatch{&gpu_named("h200"), ""};
  if (has(device_name, "H100")) return pcie_or_nvl(device_name) ? unlike("h100") : CardMatch{&gpu_named("h100"), ""};
  if (has(device_name, "A100")) {
    const char* entry = memory_bytes > (std::size_t{48} << 30) ? "a100-80gb" : "a100-40gb";
    return pcie_or_nvl(device_name) ? unlike(entry) : CardMatch{&gpu_named(entry), ""};
  }
  if (has(device_name, "3090")) return {&gpu_named("rtx3090"), ""};
  if (has(device_name, "4090")) return {&gpu_named("rtx4090"), ""};
  return {};
}

}  // namespace pipeplan
