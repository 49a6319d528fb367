// pipeplan profile: an analytic profile from a model config, training settings, a GPU and a
// layout, in the format simulate, compare and generate read.
#include <fmt/format.h>

#include <memory>

#include "command.hpp"
#include "estimate/analytic_profile.hpp"
#include "estimate/megatron_layout.hpp"
#include "estimate/moe_work.hpp"
#include "estimate/sustained_gemm.hpp"
#include "file_roles.hpp"
#include "io/analytic_profile_json.hpp"
#include "model/error.hpp"
#include "model/placement.hpp"
#include "model_options.hpp"
#include "output.hpp"

namespace pipeplan::cli {

namespace {

struct ProfileOptions {
  ModelOptions model;
  int stages = 0;
  int chunks = 1;
  std::string placement = "loop";
  std::string layout;
  int data_parallel = 1;
  std::string output;
};

// --layout as given, or Megatron's even or padded split of `stages` when named as plan takes
// them: a malformed one is a usage error, like any malformed flag.
Layout layout_flag(const std::string& text, int layers, int stages) {
  if (is_layout_keyword(text)) {
    std::optional<Layout> l = even_layout(stages, layers, text == "padded");
    if (!l) {
      throw UsageError(fmt::format("--layout {}: {} layers{} do not split evenly into {} stages", text, layers,
                                   text == "padded" ? ", the embedding and the loss" : "", stages));
    }
    return std::move(*l);
  }
  try {
    return parse_layout(text, layers, "--layout");
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

Runner add_profile(CLI::App& sub) {
  auto o = std::make_shared<ProfileOptions>();
  add_model_options(sub, o->model, false);
  sub.add_option("--stages", o->stages, "Pipeline degree P: devices")
      ->type_name("P")
      ->required()
      ->check(CLI::Range(1, 4096));
  sub.add_option("--chunks", o->chunks, "Stages per device V; the profile then has P x V stages")
      ->type_name("V")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  sub.add_option("--placement", o->placement, "With --chunks: loop (stage s on device s mod P) or vee (V = 2)")
      ->type_name("loop|vee")
      ->capture_default_str();
  sub.add_option(
         "--layout", o->layout,
         "Pieces per stage, e.g. E,t*7|t*8|t*8|t*7,H (E embedding, t layer, H head), Megatron's Et*7|t*8|t*8|t*7L, "
         "or 'even' / 'padded' (Megatron's splits; default: balanced by cost)")
      ->type_name("LAYOUT");
  sub.add_option("--dp", o->data_parallel,
                 "Data-parallel replicas whose gradient all-reduce the optimizer time includes (each of tp x cp "
                 "ranks a stage)")
      ->type_name("D")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  sub.add_option("-o,--output", o->output, "Write the profile here (default: stdout)")
      ->type_name("FILE")
      ->check(file_name());
  return [o] {
    check_file_roles({{"--model", o->model.model}, {"-o", o->output, true}});
    const ModelInput in = read_model_input(o->model);
    if (!in.precisions.empty()) {
      throw UsageError("--dtype " + o->model.dtype + ": a profile is of one precision (plan tries a list)");
    }
    const CLI::Option* gather = o->model.overlap_param_gather_option;
    if (in.training.overlap_param_gather && in.training.sharding == Sharding::None && gather && gather->count() > 0) {
      throw UsageError("--overlap-param-gather: needs the distributed optimizer (--sharding optimizer or gradients)");
    }
    std::vector<int> placement;
    if (o->placement == "loop") {
      placement = loop_placement(o->stages, o->chunks);
    } else if (o->placement == "vee") {
      if (o->chunks != 2) throw UsageError("--placement vee: needs --chunks 2");
      placement = vee_placement(o->stages);
    } else {
      throw UsageError("--placement: expected loop or vee, got '" + o->placement + "'");
    }
    const int stages = o->stages * o->chunks;
    const int per_node = o->model.gpus_per_node > 0 ? o->model.gpus_per_node : in.gpu->placement_domain();
    check_expert_folding(in.model, in.training, o->data_parallel);  // analytic_profile's words, before the links
    const GroupLinks links = group_links(*in.gpu, {in.training.tp, o->stages, o->data_parallel, in.training.ep,
                                                   per_node, in.rank_order, in.training.cp, in.training.etp});
    const PieceTotals totals = piece_totals(in.model, in.training, *in.gpu, in.efficiency, nullptr, &links);
    const Layout layout = o->layout.empty() ? balanced_layout(stages, totals.embedding, totals.layers, totals.head)
                                            : layout_flag(o->layout, in.model.layers, stages);
    if (layout.size() != std::size_t(stages)) {
      throw UsageError(fmt::format("--layout: has {} stages, --stages {} x --chunks {} needs {}", layout.size(),
                                   o->stages, o->chunks, stages));
    }
    const AnalyticProfile profile = analytic_profile(in.model, in.training, *in.gpu, in.efficiency, layout,
                                                     {placement, o->stages, o->data_parallel, per_node, in.rank_order});
    const std::string name = fmt::format("{}; pp {} x {} chunks ({}), dp {}, ranks {} on {}-GPU nodes, layout {}",
                                         describe_input(in), o->stages, o->chunks, o->placement, o->data_parallel,
                                         rank_order_name(in.rank_order), per_node, layout_string(layout));
    const std::string source = fmt::format(
        "pipeplan profile: analytic estimate (docs/costs.md), GEMM efficiency {}, memory efficiency {}, attention "
        "efficiency {},{}; not measured",
        gemm_efficiency_text(in.efficiency, *in.gpu), in.efficiency.memory, in.efficiency.attention_forward,
        in.efficiency.attention_backward);
    emit(o->output, to_json_text(analytic_profile_to_json(profile.costs, name, source)));
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
