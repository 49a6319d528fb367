#pragma once
// The flags that describe a model, how it is trained and on which GPU, shared by `profile` and
// `plan`: --model FILE --gpu NAME --seq --micro-batch --global-batch --dtype --fp8-recipe --tp --recompute
// --sharding --ep --cp --etp --moe-capacity-factor --flash-attention/--no-flash-attention --gemm-efficiency
// --memory-efficiency --attention-efficiency --gpus-per-node --network --rank-order. What their values mean, and the
// checks, are lib/io/model_flags.hpp's (the Python package's pipeplan.plan reads the same).
#include <CLI/CLI.hpp>

#include "io/model_flags.hpp"

namespace pipeplan::cli {

/// The values, and the options that tell a value given from a default (the planner searches what
/// is not given).
struct ModelOptions : ModelFlags {
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
  CLI::Option* rank_order_option = nullptr;  ///< plan: both orders are tried unless given
};

/// Registers the flags; `global_batch_required` for the planner.
void add_model_options(CLI::App& sub, ModelOptions& flags, bool global_batch_required);

/// The values with `given` set from the options counted on the command line.
[[nodiscard]] ModelFlags model_flags(const ModelOptions& flags);

/// pipeplan::read_model_input with the options given on the command line.
[[nodiscard]] ModelInput read_model_input(const ModelOptions& flags);

/// pipeplan::searched_settings with the options given on the command line.
[[nodiscard]] SearchedSettings searched_settings(const ModelOptions& flags);

}  // namespace pipeplan::cli
