#pragma once
// The flags that describe a model, how it is trained and on which GPU, shared by `profile` and
// `plan`: --model FILE --gpu NAME --seq --micro-batch --global-batch --dtype --fp8-recipe --tp --recompute
// --sharding --ep --cp --etp --moe-capacity-factor --flash-attention/--no-flash-attention --gemm-efficiency
// --memory-efficiency --attention-efficiency --gpus-per-node --rank-order.
#include <CLI/CLI.hpp>

#include <string>

#include "estimate/gpu_catalog.hpp"
#include "estimate/model_config.hpp"
#include "estimate/rank_placement.hpp"
#include "estimate/training.hpp"
#include "plan/plan_request.hpp"

namespace pipeplan::cli {

struct ModelFlags {
  std::string model;
  std::string gpu;
  std::string dtype = "bf16";
  std::string fp8_recipe;  ///< --fp8-recipe; "" for the card's default under --dtype fp8
  std::string recompute = "none";
  std::string sharding = "none";
  TrainingSettings training;
  /// The options, to tell a value given from a default (the planner searches what is not given).
  CLI::Option* tp_option = nullptr;
  CLI::Option* micro_batch_option = nullptr;
  CLI::Option* recompute_option = nullptr;
  CLI::Option* sharding_option = nullptr;
  CLI::Option* ep_option = nullptr;
  CLI::Option* cp_option = nullptr;
  CLI::Option* etp_option = nullptr;
  CLI::Option* capacity_option = nullptr;
  CLI::Option* overlap_grad_reduce_option = nullptr;
  CLI::Option* overlap_param_gather_option = nullptr;
  Efficiency efficiency;
  std::string attention_efficiency;  ///< --attention-efficiency F,B; "" for Efficiency's defaults
  int gpus_per_node = 0;
  std::string rank_order = std::string(rank_order_name(RankOrder::TpDpPp));
  CLI::Option* rank_order_option = nullptr;  ///< plan: both orders are tried unless given
};

/// Registers the flags; `global_batch_required` for the planner.
void add_model_options(CLI::App& sub, ModelFlags& flags, bool global_batch_required);

struct ModelInput {
  ModelConfig model;
  TrainingSettings training;
  const GpuSpec* gpu = nullptr;
  Efficiency efficiency;
  RankOrder rank_order = RankOrder::TpDpPp;
  bool rank_order_given = false;  ///< --rank-order was on the command line
  /// `--dtype bf16,fp8`: the precisions plan tries, the first also in `training`; empty for one.
  std::vector<Precision> precisions;
};

/// Reads the config file and resolves the names; UsageError for a bad flag, Error for a bad file.
[[nodiscard]] ModelInput read_model_input(const ModelFlags& flags);

/// The settings whose flag was not given, which the planner searches.
[[nodiscard]] SearchedSettings searched_settings(const ModelFlags& flags);

/// One line for reports: "llama (6.74 B parameters) on h100, bf16, seq 4096, micro-batch 1, ...";
/// with `searched`, the settings it marks read "searched".
[[nodiscard]] std::string describe_input(const ModelInput& input, const SearchedSettings* searched = nullptr);

}  // namespace pipeplan::cli
