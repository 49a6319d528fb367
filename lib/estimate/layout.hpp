#pragma once
// Which pieces of the model each pipeline stage holds (docs/costs.md, "Layouts"). Written as
// stages separated by '|', pieces by ',': E the embedding, t one transformer layer, t*N N of
// them, H the final norm, the head and the loss. "E,t*7|t*8|t*8|t*7,H" puts 30 layers on 4
// stages with the embedding on the first and the head on the last.
#include <string>
#include <string_view>
#include <vector>

namespace pipeplan {

struct StagePieces {
  bool embedding = false;
  int layers = 0;
  bool head = false;
};

using Layout = std::vector<StagePieces>;

/// Reads a layout string for a model of `layers` layers, in pipeplan's notation or in
/// Megatron-LM's (is_megatron_layout, parse_megatron_layout). Throws Error (naming `flag`) for an
/// unknown piece, an empty stage, E anywhere but first or H anywhere but last, or layers that
/// do not sum to the model's; `mtp_layers`, the model's multi-token prediction layers, is what a
/// Megatron layout's m's must number where it names them.
[[nodiscard]] Layout parse_layout(std::string_view text, int layers, std::string_view flag, int mtp_layers = 0);

/// The layout as a string parse_layout reads back.
[[nodiscard]] std::string layout_string(const Layout& layout);

/// The split of E, `layers` layers and H into `stages` non-empty contiguous stages whose
/// largest weighted cost is smallest (exact, by dynamic programming), given each piece's cost.
/// Stage k's cost counts 1 + tilt (S-1-k)/(S-1) times: with `tilt` 0 the stages balance time;
/// above 0 the earlier stages, which hold the most activations in 1F1B-like schedules, get
/// fewer layers. Throws Error when there are more stages than pieces.
[[nodiscard]] Layout balanced_layout(int stages, int layers, double embedding_cost, double layer_cost, double head_cost,
                                     double tilt = 0.0);

/// The same with each layer's own cost, for models whose layers differ (layer_kinds.hpp).
[[nodiscard]] Layout balanced_layout(int stages, double embedding_cost, const std::vector<double>& layer_costs,
                                     double head_cost, double tilt = 0.0);

}  // namespace pipeplan
