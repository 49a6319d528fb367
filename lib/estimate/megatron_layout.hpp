#pragma once
// Layouts as Megatron-LM writes them (docs/costs.md, "Layouts"): its
// --pipeline-model-parallel-layout strings, and the even splits of its --num-layers with and
// without the embedding and the loss counted as a layer each.
#include <optional>
#include <string>
#include <string_view>

#include "estimate/layout.hpp"

namespace pipeplan {

/// True when `text` is written in Megatron's notation rather than pipeplan's: it names the loss
/// L, groups with parentheses, or runs pieces together without commas ("Et*3|t*4L").
[[nodiscard]] bool is_megatron_layout(std::string_view text);

/// Reads Megatron's --pipeline-model-parallel-layout: E the embedding, t a layer, m a
/// multi-token prediction layer, L the loss (pipeplan's H: final norm, head, loss and the
/// multi-token prediction layers), '|' between stages, "X*N" and "(...)*N" repeat a piece or a
/// group (which may hold '|'), commas and spaces are cosmetic; stages may be empty.
/// "Et*3|(tt|)*29L" is 31 stages. The m's, where given, must stand just before L (where pipeplan
/// plans them) and number the model's `mtp_layers`; a layout without them is read as before.
/// Throws Error (naming `flag`) for an m elsewhere or of another count, an unknown character,
/// unbalanced parentheses, a bad count, or pieces out of place or not summing to `layers`.
[[nodiscard]] Layout parse_megatron_layout(std::string_view text, int layers, std::string_view flag,
                                           int mtp_layers = 0);

/// The layout in Megatron's notation, "Et*7|t*8|t*8|t*7L", for --pipeline-model-parallel-layout:
/// a model's `mtp_layers` multi-token prediction layers stand before the loss ("t*7mL"), as
/// Megatron counts them against --mtp-num-layers.
[[nodiscard]] std::string megatron_layout_string(const Layout& layout, int mtp_layers = 0);

/// Megatron's even split of `layers` over `stages`: each stage the same number of layers, the
/// embedding on the first and the loss on the last ("even"); or with
/// --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split, the
/// embedding and the loss each counted as a layer, so the first and last stages hold one layer
/// fewer ("padded"). nullopt when the count does not divide, as Megatron refuses it.
[[nodiscard]] std::optional<Layout> even_layout(int stages, int layers, bool padded);

/// "even" or "padded": the layouts --layout names by the rule that makes them, for any stage count.
[[nodiscard]] inline bool is_layout_keyword(std::string_view text) {
  return text == "even" || text == "padded";
}

}  // namespace pipeplan
