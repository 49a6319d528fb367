#include "model_options.hpp"

#include <fmt/format.h>

#include "command.hpp"
#include "enum_flags.hpp"
#include "file_roles.hpp"
#include "io/printable.hpp"
#include "model/error.hpp"
#include "plan/piece_work.hpp"

namespace pipeplan::cli {

void add_model_options(CLI::App& sub, ModelFlags& f, bool global_batch_required) {
  TrainingSettings& t = f.training;
  sub.add_option("--model", f.model, "Hugging Face config.json of the model (Llama, Mistral, Qwen, GPT-2 keys)")
      ->type_name("FILE")
      ->check(file_name())
      ->required();
  sub.add_option("--gpu", f.gpu, "GPU from the built-in table ('pipeplan gpus' lists them)")
      ->type_name("NAME")
      ->required();
  sub.add_option("--seq", t.seq, "Tokens per sequence")
      ->type_name("S")
      ->check(CLI::Range(1, 1 << 22))
      ->capture_default_str();
  sub.add_option("--micro-batch", t.micro_batch, "Sequences per micro-batch")
      ->type_name("B")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  CLI::Option* global = sub.add_option("--global-batch", t.global_batch, "Sequences per training step, over data parallelism")
                            ->type_name("G")
                            ->check(CLI::Range(1, 1 << 24));
  if (global_batch_required) global->required();
  sub.add_option("--dtype", f.dtype, "Activation and weight type: " + enum_choices(kDTypes) + " (Adam keeps fp32 masters)")
      ->type_name("TYPE")
      ->capture_default_str();
  sub.add_option("--tp", t.tp, "Tensor parallelism, with sequence parallelism")
      ->type_name("T")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub.add_option("--recompute", f.recompute, "Activation recompute: " + enum_help(kRecomputes))
      ->type_name("MODE")
      ->capture_default_str();
  sub.add_flag("--flash-attention,!--no-flash-attention", t.flash_attention,
               "Fused attention that keeps no s x s scores (default on)");
  sub.add_option("--gemm-efficiency", f.efficiency.gemm, "Fraction of the peak FLOP rate a GEMM reaches")
      ->type_name("X")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  sub.add_option("--memory-efficiency", f.efficiency.memory, "Fraction of the memory bandwidth element-wise kernels reach")
      ->type_name("X")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  sub.add_option("--gpus-per-node", f.gpus_per_node, "GPUs one node links directly (default: the GPU table's)")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
}

ModelInput read_model_input(const ModelFlags& f) {
  ModelInput in;
  in.training = f.training;
  in.efficiency = f.efficiency;
  auto dtype = dtype_named(f.dtype);
  if (!dtype) throw UsageError("--dtype: expected " + enum_choices(kDTypes) + ", got '" + f.dtype + "'");
  in.training.dtype = *dtype;
  auto recompute = recompute_named(f.recompute);
  if (!recompute) throw UsageError("--recompute: expected " + enum_choices(kRecomputes) + ", got '" + f.recompute + "'");
  in.training.recompute = *recompute;
  try {
    in.gpu = &gpu_named(f.gpu);
  } catch (const Error& e) {
    throw UsageError(std::string("--gpu: ") + e.what());
  }
  in.model = read_model_config_file(f.model);
  return in;
}

namespace {

// "6.74 B", "124.44 M", "36992".
std::string parameter_count(std::int64_t n) {
  if (n >= 1'000'000'000) return fmt::format("{:.2f} B", double(n) / 1e9);
  if (n >= 1'000'000) return fmt::format("{:.2f} M", double(n) / 1e6);
  return std::to_string(n);
}

}  // namespace

std::string describe_input(const ModelInput& in) {
  const TrainingSettings& t = in.training;
  return fmt::format("{} ({} parameters, {} layers) on {}, {}, seq {}, micro-batch {}, tp {}, recompute {}, {}",
                     printable(in.model.name), parameter_count(model_parameters(in.model)), in.model.layers, in.gpu->name,
                     dtype_name(t.dtype), t.seq, t.micro_batch, t.tp, recompute_name(t.recompute),
                     t.flash_attention ? "flash attention" : "no flash attention");
}

}  // namespace pipeplan::cli
