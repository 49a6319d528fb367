#include "io/model_flags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "estimate/context_parallel.hpp"
#include "estimate/fp8_recipe.hpp"
#include "estimate/layer_kinds.hpp"
#include "estimate/moe_work.hpp"
#include "estimate/op_checkpoint.hpp"
#include "estimate/piece_work.hpp"
#include "io/json_text.hpp"
#include "io/model_config_json.hpp"
#include "io/printable.hpp"
#include "model/error.hpp"
#include "model/finite.hpp"
#include "model/name_fold.hpp"

namespace pipeplan {

namespace {

// What --dtype takes: the storage types, and fp8 (GEMMs in FP8, storage in bf16).
constexpr std::string_view kFp8DType = "fp8";

}  // namespace

std::string dtype_choices() {
  std::string out;
  for (const auto& row : kDTypes) out += std::string(row.name) + ", ";
  out.resize(out.size() - 2);
  return out + " or " + std::string(kFp8DType);
}

namespace {

// A plain decimal number within `range`, else nullopt (NaN and infinities included).
std::optional<double> plain_number(const std::string& text, const SettingRange& range) {
  // std::strtod, not std::from_chars: the playground's emscripten (libc++ 13) has no
  // floating-point from_chars. strtod also reads blanks, a leading '+' and hex, which
  // from_chars refused; refused here too, so the flags take the same texts as before.
  const bool plain = !text.empty() && text.front() != '+' && text.find_first_of(" \t\n\v\f\rxX") == std::string::npos;
  char* end = nullptr;
  const double value = plain ? std::strtod(text.c_str(), &end) : NAN;
  if (!plain || end != text.c_str() + text.size() || !finite_within(value, range.least, range.most)) {
    return std::nullopt;
  }
  return value;
}

// One fraction of --attention-efficiency's F,B: a number from 0.01 to 1 (NaN refused by name).
double fraction_flag(std::string_view flag, const std::string& text) {
  const std::optional<double> value = plain_number(text, kEfficiencyRange);
  if (!value) {
    throw FlagError(std::string(flag) + ": expected F,B or one fraction, each from 0.01 to 1, got '" + text + "'");
  }
  return *value;
}

// --network: one of the table's networks by name, or a rate each GPU gets (a node's cards'
// rates over its GPUs), priced as the table prices InfiniBand (gpu_catalog.hpp).
std::shared_ptr<const GpuOnNetwork> card_on_network(const GpuSpec& gpu, const std::string& network) {
  std::string choices;
  for (const NamedNetwork& n : named_networks()) {
    if (same_name(n.name, network)) return gpu_on_network(gpu, n.link, std::string(n.link.name));
    choices += std::string(n.name) + ", ";
  }
  const std::optional<double> rate = plain_number(network, kNetworkRange);
  if (!rate) {
    throw FlagError(fmt::format("--network: expected {}or a rate in Gb/s each way per GPU from {} to {}, got '{}'",
                                choices, kNetworkRange.least, kNetworkRange.most, network));
  }
  return gpu_on_network(gpu, network_at(*rate, ""), fmt::format("a network of {} Gb/s per GPU (--network)", *rate));
}

// --dtype fp8's recipe: --fp8-recipe's, or the card's default; FlagError naming the flag and
// the card when the card cannot run it (fp8_recipe.hpp).
Fp8Recipe fp8_recipe_for(const ModelFlags& f, const GpuSpec& gpu) {
  std::optional<Fp8Recipe> recipe = default_fp8_recipe(gpu);
  if (!f.fp8_recipe.empty()) {
    recipe = fp8_recipe_named(f.fp8_recipe);
    if (!recipe) {
      throw FlagError("--fp8-recipe: expected " + enum_choices(kFp8Recipes) + ", got '" + f.fp8_recipe + "'");
    }
  }
  if (!recipe) throw FlagError("--dtype fp8: " + *fp8_refusal(Fp8Recipe::Tensorwise, gpu));
  if (std::optional<std::string> refusal = fp8_refusal(*recipe, gpu)) {
    throw FlagError((f.fp8_recipe.empty() ? "--dtype fp8: " : "--fp8-recipe " + f.fp8_recipe + ": ") + *refusal);
  }
  return *recipe;
}

}  // namespace

void check_model_ranges(const ModelFlags& f, bool global_batch_required) {
  const TrainingSettings& t = f.training;
  const auto check = [](const SettingRange& range, double value) {
    if (!finite_within(value, range.least, range.most)) {
      throw FlagError(fmt::format("{}: expected {} to {}, got {}", range.flag, range.least, range.most, value));
    }
  };
  check(kSeqRange, t.seq);
  check(kMicroBatchRange, t.micro_batch);
  if (global_batch_required || t.global_batch != 0) check(kGlobalBatchRange, t.global_batch);
  check(kTpRange, t.tp);
  check(kEpRange, t.ep);
  check(kCpRange, t.cp);
  check(kOffloadLayersRange, t.offload_layers);
  check(kRecomputeLayersRange, t.recompute_layers);
  if (t.etp != 0) check(kEtpRange, t.etp);
  if (t.bucket_params != 0) check(kBucketParamsRange, double(t.bucket_params));
  if (t.moe_capacity_factor != 0) check(kCapacityRange, t.moe_capacity_factor);
  if (f.gpus_per_node != 0) check(kGpusPerNodeRange, f.gpus_per_node);
}

namespace {

// What Megatron-Core refuses of --recompute-modules (transformer_config.py at d98e8a64), and the
// modules that would have nothing to act on in `model` (a flag is applied or refused, never
// dropped): nullopt when every module named applies.
std::optional<std::string> recompute_modules_refusal(const ModelConfig& model, const TrainingSettings& tr,
                                                     const std::string& file) {
  if (tr.recompute != Recompute::Selective) return std::nullopt;
  const RecomputeModules set = tr.recompute_modules;
  const auto names = [](RecomputeModules s) { return "--recompute-modules " + recompute_modules_names(s); };
  const RecomputeModules experts =
      unsigned(RecomputeModule::MoeAct) | unsigned(RecomputeModule::Moe) | unsigned(RecomputeModule::SharedExperts);
  if (has_module(set, RecomputeModule::MlaUpProj) && !model.latent.enabled()) {
    return names(unsigned(RecomputeModule::MlaUpProj)) + ": " + file +
           " has no latent attention (Megatron-Core: only with multi_latent_attention)";
  }
  if ((set & experts) != 0 && !model.is_moe()) {
    return names(set & experts) + ": " + file + " has no experts";
  }
  if (has_module(set, RecomputeModule::SharedExperts) && model.moe.shared_ffn == 0) {
    return names(unsigned(RecomputeModule::SharedExperts)) + ": " + file + " has no shared expert";
  }
  const std::vector<LayerKind> kinds = layer_kinds(model).kinds;
  const bool dense_layer = std::any_of(kinds.begin(), kinds.end(), [](const LayerKind& k) { return !k.experts; });
  if (has_module(set, RecomputeModule::Mlp) && !dense_layer) {
    return names(unsigned(RecomputeModule::Mlp)) + ": every layer of " + file +
           " is a mixture of experts, whose blocks Megatron-Core's mlp module leaves alone (name moe)";
  }
  if (has_module(set, RecomputeModule::Moe) && tr.moe_a2a_overlap) {
    return "--moe-a2a-overlap: Megatron-Core refuses it beside " + names(unsigned(RecomputeModule::Moe)) +
           " (\"disable moe in recompute_modules\")";
  }
  return std::nullopt;
}

}  // namespace

ModelInput read_model_input(const ModelFlags& f) {
  ModelInput in;
  in.training = f.training;
  in.efficiency = f.efficiency;
  // CLI11's range check lets NaN through (every comparison with it is false). A GEMM efficiency
  // of 0 is the flag not given: the card's measured rate (sustained_gemm.hpp).
  for (const auto& [flag, value] :
       {std::pair{"--gemm-efficiency", f.efficiency.gemm}, std::pair{"--memory-efficiency", f.efficiency.memory}}) {
    if (std::string_view(flag) == "--gemm-efficiency" && value == 0) continue;
    if (!finite_within(value, kEfficiencyRange.least, kEfficiencyRange.most)) {
      throw FlagError(std::string(flag) + ": expected a fraction from 0.01 to 1, got " + fmt::format("{}", value));
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
    throw FlagError(std::string("--gpu: ") + e.what());
  }
  if (!f.network.empty()) {
    in.network_card = card_on_network(*in.gpu, f.network);
    in.gpu = &in.network_card->spec;
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
    if (!dtype) throw FlagError("--dtype: expected " + dtype_choices() + " (or a list of them), got '" + name + "'");
    Precision p{*dtype, fp8 ? std::optional<Fp8Recipe>(fp8_recipe_for(f, *in.gpu)) : std::nullopt};
    if (std::find(precisions.begin(), precisions.end(), p) != precisions.end()) {
      throw FlagError("--dtype " + f.dtype + ": '" + name + "' is named twice");
    }
    precisions.push_back(p);
    any_fp8 = any_fp8 || fp8;
  }
  if (!any_fp8 && !f.fp8_recipe.empty()) {
    throw FlagError("--fp8-recipe " + f.fp8_recipe + ": needs --dtype fp8 (--dtype is " + f.dtype + ")");
  }
  if (!any_fp8 && f.training.fp8_params) {
    throw FlagError("--fp8-params: the weights are FP8 only under FP8 training: needs --dtype fp8 (--dtype is " +
                    f.dtype + ")");
  }
  if (f.training.grad_reduce_bf16) {
    for (const Precision& p : precisions) {
      if (p.dtype != DType::BF16) {
        throw FlagError("--grad-reduce-in-bf16: Megatron-LM reduces bf16 training's gradients in bf16, and --dtype " +
                        f.dtype + " trains in " + std::string(dtype_name(p.dtype)));
      }
    }
  }
  in.training.dtype = precisions.front().dtype;
  in.training.fp8 = precisions.front().fp8;
  if (precisions.size() > 1) in.precisions = precisions;
  auto recompute = recompute_named(f.recompute);
  if (!recompute) throw FlagError("--recompute: expected " + enum_choices(kRecomputes) + ", got '" + f.recompute + "'");
  in.training.recompute = *recompute;
  if (f.recompute_modules) {
    const std::string& list = *f.recompute_modules;
    std::string bad;
    const std::optional<RecomputeModules> modules = recompute_modules_named(list, bad);
    if (!modules) {
      throw FlagError("--recompute-modules " + list + ": '" + bad + "' is not one of " +
                      enum_choices(kRecomputeModules) + ", or is named twice (a comma-separated list)");
    }
    if (f.given.recompute && in.training.recompute != Recompute::Selective) {
      throw FlagError("--recompute-modules " + list + ": the modules of selective recompute, and --recompute is " +
                      f.recompute + "; give --recompute selective or leave it out");
    }
    in.training.recompute = Recompute::Selective;
    in.training.recompute_modules = *modules;
  }
  if (in.training.recompute_layers > 0 && in.training.recompute != Recompute::Full && f.given.recompute) {
    throw FlagError(fmt::format(
        "--recompute-layers {}: chooses the layers full recompute recomputes (Megatron-LM's block method), and "
        "--recompute is {}; give --recompute full, or leave --recompute out for plan to search it",
        in.training.recompute_layers, f.recompute));
  }
  auto sharding = sharding_named(f.sharding);
  if (!sharding) throw FlagError("--sharding: expected " + enum_choices(kShardings) + ", got '" + f.sharding + "'");
  in.training.sharding = *sharding;
  const bool sharding_given = f.given.sharding;
  const bool gather_given = f.given.overlap_param_gather;
  if (in.training.overlap_param_gather && gather_given && in.training.sharding == Sharding::None && sharding_given) {
    throw FlagError(
        "--overlap-param-gather: needs the distributed optimizer (--sharding optimizer or gradients); "
        "with --sharding none every replica keeps its weights and gathers none");
  }
  if (in.training.bucket_params > 0 && !in.training.overlap_grad_reduce) {
    throw FlagError(
        "--ddp-bucket-size: sizes the buckets --overlap-grad-reduce reduces (and --overlap-param-gather "
        "gathers) by; with --no-overlap-grad-reduce Megatron-Core keeps one bucket a stage");
  }
  if (in.training.param_gather_at_step_start && !in.training.overlap_param_gather) {
    throw FlagError(
        "--param-gather-at-step-start: says when --overlap-param-gather dispatches its first bucket; "
        "with --no-overlap-param-gather the step gathers its weights after the optimizer");
  }
  if (in.training.bucket_params > 0 && in.training.sharding == Sharding::Params && sharding_given) {
    throw FlagError(
        "--ddp-bucket-size: sizes Megatron-Core's gradient buckets; FSDP (--sharding params) gathers and "
        "reduce-scatters a layer at a time instead");
  }
  if (in.training.tp_comm_overlap && !in.training.sequence_parallel) {
    throw FlagError(
        "--tp-comm-overlap: needs sequence parallelism (Transformer Engine's userbuffers overlap the "
        "sequence-parallel gathers and scatters); drop --no-sequence-parallel or --tp-comm-overlap");
  }
  if (in.training.tp_comm_overlap && f.given.tp && in.training.tp == 1) {
    throw FlagError(
        "--tp-comm-overlap: needs --tp above 1 (with --tp 1 there are no tensor-parallel collectives "
        "to overlap)");
  }
  if (f.fsdp_impl) {
    const std::optional<FsdpImpl> impl = fsdp_impl_named(*f.fsdp_impl);
    if (!impl) throw FlagError("--fsdp-impl: expected " + enum_choices(kFsdpImpls) + ", got '" + *f.fsdp_impl + "'");
    if (sharding_given && in.training.sharding != Sharding::Params) {
      throw FlagError("--fsdp-impl " + *f.fsdp_impl + ": names what runs --sharding params, and --sharding is " +
                      f.sharding + "; give --sharding params, or leave --sharding out for plan to search it");
    }
    in.training.fsdp_impl = *impl;
  }
  if (f.tp_overlap_method) {
    const std::optional<TpOverlapMethod> method = tp_overlap_method_named(*f.tp_overlap_method);
    if (!method) {
      throw FlagError("--tp-overlap-method: expected " + enum_choices(kTpOverlapMethods) + ", got '" +
                      *f.tp_overlap_method + "'");
    }
    if (!in.training.tp_comm_overlap) {
      throw FlagError("--tp-overlap-method " + *f.tp_overlap_method +
                      ": names what runs --tp-comm-overlap, which is off; add --tp-comm-overlap or drop it");
    }
    in.training.tp_overlap_method = *method;
  }
  const std::optional<Loss> loss = loss_named(f.loss);
  if (!loss) throw FlagError("--loss: expected " + enum_choices(kLosses) + ", got '" + f.loss + "'");
  in.training.loss = *loss;
  if (f.attention_kernel) {
    const std::optional<AttentionKernel> kernel = attention_kernel_named(*f.attention_kernel);
    if (!kernel) {
      throw FlagError("--attention-kernel: expected " + enum_choices(kAttentionKernels) + ", got '" +
                      *f.attention_kernel + "'");
    }
    if (!f.attention_efficiency.empty()) {
      throw FlagError("--attention-kernel " + *f.attention_kernel + " with --attention-efficiency " +
                      f.attention_efficiency +
                      ": the given fractions replace the kernel's measured rates; give one of the two");
    }
    in.efficiency.attention_kernel = *kernel;
  }
  // Both price flash attention's fused kernel; unfused, the core is cuBLAS's batched products.
  if (!in.training.flash_attention && (f.attention_kernel || !f.attention_efficiency.empty())) {
    throw FlagError(std::string(f.attention_kernel ? "--attention-kernel" : "--attention-efficiency") +
                    " with --no-flash-attention: it prices flash attention's fused kernel; without flash attention "
                    "the core is cuBLAS's batched products, priced by --gemm-efficiency and their shapes: give one "
                    "of the two");
  }
  const std::optional<Elementwise> elementwise = elementwise_named(f.elementwise);
  if (!elementwise) {
    throw FlagError("--elementwise: expected " + enum_choices(kElementwises) + ", got '" + f.elementwise + "'");
  }
  in.training.elementwise = *elementwise;
  const std::optional<MoeDispatcher> dispatcher = moe_dispatcher_named(f.moe_dispatcher);
  if (!dispatcher) {
    throw FlagError("--moe-dispatcher: expected " + enum_choices(kMoeDispatchers) + ", got '" + f.moe_dispatcher + "'");
  }
  in.training.moe_dispatcher = *dispatcher;
  const std::optional<CudaGraphs> graphs = cuda_graphs_named(f.cuda_graphs);
  if (!graphs)
    throw FlagError("--cuda-graphs: expected " + enum_choices(kCudaGraphs) + ", got '" + f.cuda_graphs + "'");
  in.training.cuda_graphs = *graphs;
  const std::optional<RankOrder> order = rank_order_named(f.rank_order);
  if (!order) throw FlagError("--rank-order: expected " + enum_choices(kRankOrders) + ", got '" + f.rank_order + "'");
  in.rank_order = *order;
  in.rank_order_given = f.given.rank_order;
  in.model = f.model_json.empty() ? read_model_config_file(f.model)
                                  : model_config_from_json(parse_json(f.model_json, f.model), f.model);
  if (in.training.recompute == Recompute::Ops) {
    if (std::optional<std::string> refusal = op_checkpoint_refusal(in.model, in.training)) throw FlagError(*refusal);
  }
  if (!in.model.is_moe() && in.training.ep > 1) {
    throw Error("--ep " + std::to_string(in.training.ep) + ": " + f.model + " has no experts to spread");
  }
  if (!in.model.is_moe() && in.training.moe_dispatcher != MoeDispatcher::AllToAll) {
    throw Error("--moe-dispatcher " + f.moe_dispatcher + ": " + f.model + " has no experts to dispatch to");
  }
  if (in.training.cuda_graphs == CudaGraphs::MoeRouter && !in.model.is_moe()) {
    throw Error("--cuda-graphs moe-router: " + f.model + " has no router to capture");
  }
  if (!in.model.is_moe() && in.training.moe_capacity_factor > 0) {
    throw Error("--moe-capacity-factor: " + f.model + " has no experts to route to");
  }
  if (in.training.moe_a2a_overlap && !in.model.is_moe()) {
    throw Error("--moe-a2a-overlap: " + f.model + " has no experts whose all-to-alls to overlap");
  }
  if (in.training.moe_a2a_overlap && f.given.ep && in.training.ep == 1) {
    throw FlagError("--moe-a2a-overlap: overlaps the expert all-to-alls, which --ep 1 has none of");
  }
  if (in.training.moe_a2a_overlap && in.training.recompute == Recompute::Full) {
    // transformer_config.py at d98e8a64: "disable full recomputation when enabling
    // overlap_moe_expert_parallel_comm".
    throw FlagError("--moe-a2a-overlap: Megatron-Core runs it without full recompute, not with --recompute full");
  }
  if (std::optional<std::string> refusal = recompute_modules_refusal(in.model, in.training, f.model)) {
    throw Error(*refusal);
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
  const ModelGiven& g = f.given;
  return {!g.tp, !g.micro_batch, !g.recompute && !f.recompute_modules, !g.sharding, !g.ep, !g.cp};
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
  std::string text =
      fmt::format("{} ({} parameters{}, {} layers) on {}, {}, seq {}, micro-batch {}, tp {}, cp {}{}, recompute {}",
                  printable(in.model.name), parameter_count(model_parameters(in.model)), active, in.model.layers,
                  in.gpu->name, dtype, t.seq, value(s.micro_batch, std::to_string(t.micro_batch)),
                  value(s.tp, std::to_string(t.tp)), value(s.cp, std::to_string(t.cp)), ep,
                  // Offloading takes recompute's place: the planner tries none alone (search_space.cpp).
                  value(s.recompute && t.offload_layers == 0, recompute_text(t.recompute, t.recompute_modules)));
  if (searched != nullptr || t.sharding != Sharding::None)
    text += ", sharding " + value(s.sharding, std::string(sharding_name(t.sharding)));
  if (in.network_card) text += ", on " + in.network_card->network_name;
  text += t.flash_attention ? ", flash attention" : ", no flash attention";
  if (t.overlap_grad_reduce) text += ", overlapped gradient reduction";
  if (t.overlap_param_gather) text += ", overlapped weight all-gather";
  if (t.bucket_params > 0) text += fmt::format(", gradient buckets of {} parameters", t.bucket_params);
  if (t.param_gather_at_step_start) text += ", the first weight bucket gathered from the step's start";
  if (t.fsdp_impl == FsdpImpl::Megatron) text += ", FSDP as Megatron-FSDP runs it";
  if (t.tp_comm_overlap) text += ", tensor-parallel collectives beside their GEMMs";
  if (t.tp_comm_overlap && t.tp_overlap_method == TpOverlapMethod::AsyncTp) text += " (PyTorch's async TP)";
  if (!t.sequence_parallel) text += ", no sequence parallelism";
  if (t.loss != Loss::VocabParallel) text += ", the loss as " + std::string(loss_name(t.loss)) + " computes it";
  if (t.elementwise == Elementwise::Eager) text += ", norms, RoPE and activations op by op (eager)";
  if (t.elementwise == Elementwise::EagerFusedNorm) text += ", RoPE and activations op by op (eager), norms fused";
  if (t.offload_layers > 0)
    text += fmt::format(", the first {} layers' activations offloaded to the host", t.offload_layers);
  if (t.fp8_params) text += ", FP8 linear weights without a 16-bit copy";
  if (t.grad_reduce_bf16) text += ", gradients reduced in bf16";
  if (t.moe_a2a_overlap) text += ", each backward's expert all-to-alls beside the next forward (and back)";
  if (t.moe_comm_sms != TrainingSettings{}.moe_comm_sms) {
    text += fmt::format(", the all-to-alls' kernels on {} SMs beside compute", t.moe_comm_sms);
  }
  if (t.moe_dispatcher == MoeDispatcher::Flex) text += ", the flex token dispatcher (a token once per rank or domain)";
  if (t.cuda_graphs == CudaGraphs::MoeRouter) text += ", CUDA graphs of the MoE router";
  if (t.cuda_graphs == CudaGraphs::Attn) text += ", CUDA graphs of the attention (and the MoE router)";
  if (t.cuda_graphs == CudaGraphs::Layers) text += ", each layer replayed from a CUDA graph";
  if (t.cuda_graphs == CudaGraphs::Full) text += ", the whole step replayed from a CUDA graph";
  if (t.recompute_layers > 0) {
    text +=
        fmt::format(", full recompute's block: the first {} of each stage's layers, the rest kept", t.recompute_layers);
  }
  return text;
}

}  // namespace pipeplan
