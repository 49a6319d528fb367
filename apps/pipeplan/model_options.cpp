#include "model_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "command.hpp"
#include "enum_flags.hpp"
#include "estimate/context_parallel.hpp"
#include "estimate/fp8_recipe.hpp"
#include "estimate/moe_work.hpp"
#include "estimate/piece_work.hpp"
#include "file_roles.hpp"
#include "io/model_config_json.hpp"
#include "io/printable.hpp"
#include "model/error.hpp"

namespace pipeplan::cli {

namespace {

// What --dtype takes: the storage types, and fp8 (GEMMs in FP8, storage in bf16).
constexpr std::string_view kFp8DType = "fp8";

// One fraction of --attention-efficiency's F,B: a number from 0.01 to 1 (NaN refused by name).
double fraction_flag(std::string_view flag, const std::string& text) {
  // std::strtod, not std::from_chars: the playground's emscripten (libc++ 13) has no
  // floating-point from_chars. strtod also reads blanks, a leading '+' and hex, which
  // from_chars refused; refused here too, so the flag takes the same texts as before.
  const bool plain = !text.empty() && text.front() != '+' && text.find_first_of(" \t\n\v\f\rxX") == std::string::npos;
  char* end = nullptr;
  const double value = plain ? std::strtod(text.c_str(), &end) : NAN;
  if (!plain || end != text.c_str() + text.size() || !(value >= 0.01 && value <= 1.0)) {
    throw UsageError(std::string(flag) + ": expected F,B or one fraction, each from 0.01 to 1, got '" + text + "'");
  }
  return value;
}

std::string dtype_choices() {
  std::string out;
  for (const auto& row : kDTypes) out += std::string(row.name) + ", ";
  out.resize(out.size() - 2);
  return out + " or " + std::string(kFp8DType);
}

// --dtype fp8's recipe: --fp8-recipe's, or the card's default; UsageError naming the flag and
// the card when the card cannot run it (fp8_recipe.hpp).
Fp8Recipe fp8_recipe_for(const ModelFlags& f, const GpuSpec& gpu) {
  std::optional<Fp8Recipe> recipe = default_fp8_recipe(gpu);
  if (!f.fp8_recipe.empty()) {
    recipe = fp8_recipe_named(f.fp8_recipe);
    if (!recipe) {
      throw UsageError("--fp8-recipe: expected " + enum_choices(kFp8Recipes) + ", got '" + f.fp8_recipe + "'");
    }
  }
  if (!recipe) throw UsageError("--dtype fp8: " + *fp8_refusal(Fp8Recipe::Tensorwise, gpu));
  if (std::optional<std::string> refusal = fp8_refusal(*recipe, gpu)) {
    throw UsageError((f.fp8_recipe.empty() ? "--dtype fp8: " : "--fp8-recipe " + f.fp8_recipe + ": ") + *refusal);
  }
  return *recipe;
}

}  // namespace

void add_model_options(CLI::App& sub, ModelFlags& f, bool global_batch_required) {
  TrainingSettings& t = f.training;
  sub.add_option("--model", f.model,
                 "Hugging Face config.json of the model (docs/costs.md lists the families: Llama, Qwen3, DeepSeek-V3, "
                 "GPT-OSS, Llama 4, ...)")
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
  f.micro_batch_option =
      sub.add_option("--micro-batch", t.micro_batch, "Sequences per micro-batch (plan: searched unless given)")
          ->type_name("B")
          ->check(CLI::Range(1, 1 << 16))
          ->capture_default_str();
  CLI::Option* global =
      sub.add_option("--global-batch", t.global_batch, "Sequences per training step, over data parallelism")
          ->type_name("G")
          ->check(CLI::Range(1, 1 << 24));
  if (global_batch_required) global->required();
  sub.add_option("--dtype", f.dtype,
                 "Activation and weight type: " + dtype_choices() +
                     " (Adam keeps fp32 masters; fp8: the linear layers' GEMMs in FP8, weights and activations "
                     "in bf16, as Transformer Engine trains; plan: a list such as bf16,fp8 tries each)")
      ->type_name("TYPE")
      ->capture_default_str();
  sub.add_option("--fp8-recipe", f.fp8_recipe,
                 "With --dtype fp8, how tensors are scaled: " + enum_help(kFp8Recipes) +
                     " (default: mxfp8 on Blackwell, tensorwise on Hopper and Ada)")
      ->type_name("RECIPE");
  f.tp_option =
      sub.add_option("--tp", t.tp, "Tensor parallelism, with sequence parallelism (plan: searched unless given)")
          ->type_name("T")
          ->check(CLI::Range(1, 1024))
          ->capture_default_str();
  f.recompute_option =
      sub.add_option("--recompute", f.recompute,
                     "Activation recompute: " + enum_help(kRecomputes) + " (plan: searched unless given)")
          ->type_name("MODE")
          ->capture_default_str();
  f.sharding_option =
      sub.add_option("--sharding", f.sharding,
                     "Over data parallelism: " + enum_help(kShardings) + " (plan: searched unless given)")
          ->type_name("MODE")
          ->capture_default_str();
  f.ep_option =
      sub.add_option("--ep", t.ep,
                     "Expert parallelism of a mixture of experts: its experts spread over E ranks, the expert groups "
                     "folded over each stage's tp x cp x dp ranks as Megatron does (plan: searched unless given)")
          ->type_name("E")
          ->check(CLI::Range(1, 1 << 16))
          ->capture_default_str();
  f.etp_option = sub.add_option("--etp", t.etp,
                                "Expert tensor parallelism (Megatron's --expert-tensor-parallel-size): each expert's "
                                "widths split over T ranks (default: --tp, Megatron's default)")
                     ->type_name("T")
                     ->check(CLI::Range(1, 1024));
  f.capacity_option = sub.add_option("--moe-capacity-factor", t.moe_capacity_factor,
                                     "Megatron's --moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity: "
                                     "every expert takes X times its balanced share of tokens, padded or dropped to it "
                                     "(default: dropless)")
                          ->type_name("X")
                          ->check(CLI::Range(0.01, 64.0));
  f.cp_option = sub.add_option("--cp", t.cp,
                               "Context parallelism: each sequence split over C ranks, Megatron's ring attention "
                               "(GPUs = tp x cp x pp x dp; plan: searched unless given)")
                    ->type_name("C")
                    ->check(CLI::Range(1, 1 << 16))
                    ->capture_default_str();
  sub.add_flag("--flash-attention,!--no-flash-attention", t.flash_attention,
               "Fused attention that keeps no s x s scores (default on)");
  t.overlap_grad_reduce = true;
  t.overlap_param_gather = true;
  // On by default, as Megatron-LM's own training scripts run the distributed optimizer
  // (examples/llama/train_llama3_8b_h100_fp8.sh, examples/mixtral/train_mixtral_8x7b_distributed.sh).
  f.overlap_grad_reduce_option =
      sub.add_flag("--overlap-grad-reduce,!--no-overlap-grad-reduce", t.overlap_grad_reduce,
                   "Megatron-LM's option: the data-parallel gradient reduction runs under the last micro-batch's "
                   "backward instead of after it (default on)");
  f.overlap_param_gather_option =
      sub.add_flag("--overlap-param-gather,!--no-overlap-param-gather", t.overlap_param_gather,
                   "Megatron-LM's option with the distributed optimizer: the stepped weights' all-gather runs under "
                   "the next step's forward (default on; nothing to gather with --sharding none)");
  sub.add_option("--gemm-efficiency", f.efficiency.gemm,
                 "Fraction of the peak FLOP rate a large, well-shaped GEMM reaches; each GEMM gets it times its "
                 "shape's tile and wave quantisation and roofline factor")
      ->type_name("X")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  sub.add_option("--memory-efficiency", f.efficiency.memory,
                 "Fraction of the memory bandwidth element-wise kernels reach")
      ->type_name("X")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  sub.add_option("--attention-efficiency", f.attention_efficiency,
                 "Fractions of the peak FLOP rate flash attention's kernel reaches, forward and backward, as F,B "
                 "(or one for both); default " +
                     fmt::format("{},{}", Efficiency{}.attention_forward, Efficiency{}.attention_backward) +
                     ", cuDNN's on an H100 (docs/costs.md)")
      ->type_name("F,B");
  sub.add_option("--gpus-per-node", f.gpus_per_node,
                 "GPUs of one NVLink domain that a job's consecutive ranks fill, which link directly; beyond them the "
                 "network (default: the GPU table's: 8 on HGX boards, 64 of a GB200/GB300 NVL72 rack's 72)")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
  f.rank_order_option =
      sub.add_option("--rank-order", f.rank_order,
                     "How ranks are numbered onto nodes, innermost first, which decides the links of the pipeline, "
                     "data- and expert-parallel groups: " +
                         enum_help(kRankOrders) + " (plan: both tried unless given)")
          ->type_name("ORDER")
          ->transform(enum_choices_of(kRankOrders))
          ->capture_default_str();
}

ModelInput read_model_input(const ModelFlags& f) {
  ModelInput in;
  in.training = f.training;
  in.efficiency = f.efficiency;
  // CLI11's range check lets NaN through (every comparison with it is false).
  for (const auto& [flag, value] :
       {std::pair{"--gemm-efficiency", f.efficiency.gemm}, std::pair{"--memory-efficiency", f.efficiency.memory}}) {
    if (!(value >= 0.01 && value <= 1.0)) {
      throw UsageError(std::string(flag) + ": expected a fraction from 0.01 to 1, got " + fmt::format("{}", value));
    }
  }
  if (!f.attention_efficiency.empty()) {
    const std::size_t comma = f.attention_efficiency.find(',');
    const std::string forward = f.attention_efficiency.substr(0, comma);
    const std::string backward = comma == std::string::npos ? forward : f.attention_efficiency.substr(comma + 1);
    in.efficiency.attention_forward = fraction_flag("--attention-efficiency", forward);
    in.efficiency.attention_backward = fraction_flag("--attention-efficiency", backward);
  }
  try {
    in.gpu = &gpu_named(f.gpu);
  } catch (const Error& e) {
    throw UsageError(std::string("--gpu: ") + e.what());
  }
  // fp8 keeps bf16 storage and puts the recipe beside it (training.hpp). A comma-separated list
  // (plan --dtype bf16,fp8) names precisions to try, each a row of its own.
  bool any_fp8 = false;
  std::vector<Precision> precisions;
  for (std::size_t from = 0; from <= f.dtype.size();) {
    const std::size_t comma = std::min(f.dtype.find(',', from), f.dtype.size());
    const std::string name = f.dtype.substr(from, comma - from);
    from = comma + 1;
    const bool fp8 = same_name(name, kFp8DType);
    auto dtype = fp8 ? std::optional<DType>(DType::BF16) : dtype_named(name);
    if (!dtype) throw UsageError("--dtype: expected " + dtype_choices() + " (or a list of them), got '" + name + "'");
    Precision p{*dtype, fp8 ? std::optional<Fp8Recipe>(fp8_recipe_for(f, *in.gpu)) : std::nullopt};
    if (std::find(precisions.begin(), precisions.end(), p) != precisions.end()) {
      throw UsageError("--dtype " + f.dtype + ": '" + name + "' is named twice");
    }
    precisions.push_back(p);
    any_fp8 = any_fp8 || fp8;
  }
  if (!any_fp8 && !f.fp8_recipe.empty()) {
    throw UsageError("--fp8-recipe " + f.fp8_recipe + ": needs --dtype fp8 (--dtype is " + f.dtype + ")");
  }
  in.training.dtype = precisions.front().dtype;
  in.training.fp8 = precisions.front().fp8;
  if (precisions.size() > 1) in.precisions = precisions;
  auto recompute = recompute_named(f.recompute);
  if (!recompute)
    throw UsageError("--recompute: expected " + enum_choices(kRecomputes) + ", got '" + f.recompute + "'");
  in.training.recompute = *recompute;
  auto sharding = sharding_named(f.sharding);
  if (!sharding) throw UsageError("--sharding: expected " + enum_choices(kShardings) + ", got '" + f.sharding + "'");
  in.training.sharding = *sharding;
  const bool sharding_given = f.sharding_option != nullptr && f.sharding_option->count() > 0;
  const bool gather_given = f.overlap_param_gather_option != nullptr && f.overlap_param_gather_option->count() > 0;
  if (in.training.overlap_param_gather && gather_given && in.training.sharding == Sharding::None && sharding_given) {
    throw UsageError(
        "--overlap-param-gather: needs the distributed optimizer (--sharding optimizer or gradients); "
        "with --sharding none every replica keeps its weights and gathers none");
  }
  // The flag's choices are the table's names, so the table parses whatever it kept.
  in.rank_order = rank_order_named(f.rank_order).value_or(RankOrder::TpDpPp);
  in.rank_order_given = f.rank_order_option != nullptr && f.rank_order_option->count() > 0;
  in.model = read_model_config_file(f.model);
  if (!in.model.is_moe() && in.training.ep > 1) {
    throw Error("--ep " + std::to_string(in.training.ep) + ": " + f.model + " has no experts to spread");
  }
  if (!in.model.is_moe() && in.training.moe_capacity_factor > 0) {
    throw Error("--moe-capacity-factor: " + f.model + " has no experts to route to");
  }
  if (!in.model.is_moe() && in.training.etp > 0) {
    throw Error("--etp " + std::to_string(in.training.etp) + ": " + f.model + " has no experts to split");
  }
  check_context_parallel(in.training);
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

SearchedSettings searched_settings(const ModelFlags& f) {
  const auto absent = [](const CLI::Option* o) { return o == nullptr || o->count() == 0; };
  return {absent(f.tp_option),       absent(f.micro_batch_option), absent(f.recompute_option),
          absent(f.sharding_option), absent(f.ep_option),          absent(f.cp_option)};
}

std::string describe_input(const ModelInput& in, const SearchedSettings* searched) {
  const TrainingSettings& t = in.training;
  const auto value = [&](bool search, const std::string& fixed) {
    return searched != nullptr && search ? std::string("searched") : fixed;
  };
  const SearchedSettings none{false, false, false, false, false, false};
  const SearchedSettings& s = searched != nullptr ? *searched : none;
  // A mixture of experts: how many of its parameters a token passes through, and the experts' spread.
  const bool moe = in.model.is_moe();
  const std::string active = moe ? ", " + parameter_count(active_parameters(in.model)) + " active" : "";
  const std::string capacity =
      t.moe_capacity_factor > 0 ? fmt::format(", capacity factor {}", t.moe_capacity_factor) : ", dropless";
  const std::string ep = moe ? ", ep " + value(s.ep, std::to_string(t.ep)) + ", etp " +
                                   (t.etp > 0 ? std::to_string(t.etp) : std::string("as tp")) + capacity
                             : "";
  // FP8: the recipe, and that storage stays bf16; several: the ones the planner tries.
  std::string dtype =
      t.fp8 ? fmt::format("fp8 ({} recipe, {} weights and activations)", fp8_recipe_name(*t.fp8), dtype_name(t.dtype))
            : std::string(dtype_name(t.dtype));
  if (in.precisions.size() > 1) {
    dtype = "precision searched (";
    for (std::size_t i = 0; i < in.precisions.size(); ++i)
      dtype += (i > 0 ? ", " : "") + precision_name(in.precisions[i]);
    dtype += ")";
  }
  std::string text = fmt::format(
      "{} ({} parameters{}, {} layers) on {}, {}, seq {}, micro-batch {}, tp {}, cp {}{}, recompute {}",
      printable(in.model.name), parameter_count(model_parameters(in.model)), active, in.model.layers, in.gpu->name,
      dtype, t.seq, value(s.micro_batch, std::to_string(t.micro_batch)), value(s.tp, std::to_string(t.tp)),
      value(s.cp, std::to_string(t.cp)), ep, value(s.recompute, std::string(recompute_name(t.recompute))));
  if (searched != nullptr || t.sharding != Sharding::None)
    text += ", sharding " + value(s.sharding, std::string(sharding_name(t.sharding)));
  text += t.flash_attention ? ", flash attention" : ", no flash attention";
  if (t.overlap_grad_reduce) text += ", overlapped gradient reduction";
  if (t.overlap_param_gather) text += ", overlapped weight all-gather";
  return text;
}

}  // namespace pipeplan::cli
