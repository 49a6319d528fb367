#include "io/profile_flags.hpp"

#include <fmt/format.h>

#include <optional>
#include <utility>
#include <vector>

#include "estimate/analytic_profile.hpp"
#include "estimate/attention_kernel.hpp"
#include "estimate/layout.hpp"
#include "estimate/megatron_layout.hpp"
#include "estimate/moe_work.hpp"
#include "estimate/sustained_gemm.hpp"
#include "io/analytic_profile_json.hpp"
#include "model/error.hpp"
#include "model/placement.hpp"

namespace pipeplan {

namespace {

void check_range(const SettingRange& range, int value) {
  if (!(value >= range.least && value <= range.most)) {
    throw FlagError(fmt::format("{}: expected {} to {}, got {}", range.flag, range.least, range.most, value));
  }
}

// --layout as given, or Megatron's even or padded split of `stages` when named as plan takes
// them; a malformed one is a malformed flag.
Layout layout_flag(const std::string& text, int layers, int mtp_layers, int stages) {
  if (is_layout_keyword(text)) {
    std::optional<Layout> l = even_layout(stages, layers, text == "padded");
    if (!l) {
      throw FlagError(fmt::format("--layout {}: {} layers{} do not split evenly into {} stages", text, layers,
                                  text == "padded" ? ", the embedding and the loss" : "", stages));
    }
    return std::move(*l);
  }
  try {
    return parse_layout(text, layers, "--layout", mtp_layers);
  } catch (const Error& e) {
    throw FlagError(e.what());
  }
}

std::vector<int> placement_flag(const ProfileFlags& f) {
  if (f.placement == "loop") return loop_placement(f.stages, f.chunks);
  if (f.placement == "vee") {
    if (f.chunks != 2) throw FlagError("--placement vee: needs --chunks 2");
    return vee_placement(f.stages);
  }
  throw FlagError("--placement: expected loop or vee, got '" + f.placement + "'");
}

}  // namespace

Json analytic_profile_document(const ModelInput& in, const ModelFlags& model, const ProfileFlags& f) {
  check_range(kProfileStagesRange, f.stages);
  check_range(kProfileChunksRange, f.chunks);
  check_range(kProfileDpRange, f.data_parallel);
  if (!in.precisions.empty()) {
    throw FlagError("--dtype " + model.dtype + ": a profile is of one precision (plan tries a list)");
  }
  if (in.training.overlap_param_gather && in.training.sharding == Sharding::None && model.given.overlap_param_gather) {
    throw FlagError("--overlap-param-gather: needs the distributed optimizer (--sharding optimizer or gradients)");
  }
  const std::vector<int> placement = placement_flag(f);
  const int stages = f.stages * f.chunks;
  const int per_node = model.gpus_per_node > 0 ? model.gpus_per_node : in.gpu->placement_domain();
  check_expert_folding(in.model, in.training, f.data_parallel);  // analytic_profile's words, before the links
  const GroupLinks links = group_links(*in.gpu, {in.training.tp, f.stages, f.data_parallel, in.training.ep, per_node,
                                                 in.rank_order, in.training.cp, in.training.etp});
  const PieceTotals totals = piece_totals(in.model, in.training, *in.gpu, in.efficiency, nullptr, &links);
  const Layout layout = f.layout.empty() ? balanced_layout(stages, totals.embedding, totals.layers, totals.head)
                                         : layout_flag(f.layout, in.model.layers, in.model.mtp_layers, stages);
  if (layout.size() != std::size_t(stages)) {
    throw FlagError(fmt::format("--layout: has {} stages, --stages {} x --chunks {} needs {}", layout.size(), f.stages,
                                f.chunks, stages));
  }
  const AnalyticProfile profile = analytic_profile(in.model, in.training, *in.gpu, in.efficiency, layout,
                                                   {placement, f.stages, f.data_parallel, per_node, in.rank_order});
  const std::string name = fmt::format("{}; pp {} x {} chunks ({}), dp {}, ranks {} on {}-GPU nodes, layout {}",
                                       describe_input(in), f.stages, f.chunks, f.placement, f.data_parallel,
                                       rank_order_name(in.rank_order), per_node, layout_string(layout));
  const std::string source = fmt::format(
      "pipeplan profile: analytic estimate (docs/costs.md), GEMM efficiency {}, memory efficiency {}, attention "
      "efficiency {}; not measured",
      gemm_efficiency_text(in.efficiency, *in.gpu), in.efficiency.memory,
      attention_efficiency_text(in.efficiency, *in.gpu));
  return analytic_profile_to_json(profile.costs, name, source);
}

}  // namespace pipeplan
