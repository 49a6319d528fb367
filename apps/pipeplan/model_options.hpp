#pragma once
// The flags that describe a model, how it is trained and on which GPU, shared by `profile` and
// `plan`: --model FILE --gpu NAME --seq --micro-batch --global-batch --dtype --tp --recompute
// --flash-attention/--no-flash-attention --gemm-efficiency --memory-efficiency.
#include <CLI/CLI.hpp>

#include <string>

#include "plan/gpu_catalog.hpp"
#include "plan/model_config.hpp"
#include "plan/training.hpp"

namespace pipeplan::cli {

struct ModelFlags {
  std::string model;
  std::string gpu;
  std::string dtype = "bf16";
  std::string recompute = "none";
  TrainingSettings training;
  Efficiency efficiency;
  int gpus_per_node = 0;
};

/// Registers the flags; `global_batch_required` for the planner.
void add_model_options(CLI::App& sub, ModelFlags& flags, bool global_batch_required);

struct ModelInput {
  ModelConfig model;
  TrainingSettings training;
  const GpuSpec* gpu = nullptr;
  Efficiency efficiency;
};

/// Reads the config file and resolves the names; UsageError for a bad flag, Error for a bad file.
[[nodiscard]] ModelInput read_model_input(const ModelFlags& flags);

/// One line for reports: "llama (6.74 B parameters) on h100, bf16, seq 4096, micro-batch 1, ...".
[[nodiscard]] std::string describe_input(const ModelInput& input);

}  // namespace pipeplan::cli
