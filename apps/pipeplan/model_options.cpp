#include "model_options.hpp"

#include <fmt/format.h>

#include "enum_flags.hpp"
#include "file_roles.hpp"
#include "flag_checks.hpp"

namespace pipeplan::cli {

namespace {

// The library's bounds (io/model_flags.hpp), checked while parsing so the help shows them: whole
// numbers for the counts, fractions for the factors.
CLI::Range whole_range(const SettingRange& r) {
  return CLI::Range(static_cast<int>(r.least), static_cast<int>(r.most));
}
CLI::Validator fraction_range(const SettingRange& r) {
  return finite_range(r.least, r.most);
}

}  // namespace

void add_model_options(CLI::App& sub, ModelOptions& f, bool global_batch_required) {
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
      ->check(whole_range(kSeqRange))
      ->capture_default_str();
  f.micro_batch_option =
      sub.add_option("--micro-batch", t.micro_batch, "Sequences per micro-batch (plan: searched unless given)")
          ->type_name("B")
          ->check(whole_range(kMicroBatchRange))
          ->capture_default_str();
  CLI::Option* global =
      sub.add_option("--global-batch", t.global_batch, "Sequences per training step, over data parallelism")
          ->type_name("G")
          ->check(whole_range(kGlobalBatchRange));
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
          ->check(whole_range(kTpRange))
          ->capture_default_str();
  f.recompute_option =
      sub.add_option("--recompute", f.recompute,
                     "Activation recompute: " + enum_help(kRecomputes) + " (plan: searched unless given)")
          ->type_name("MODE")
          ->capture_default_str();
  sub.add_option(
         "--recompute-modules", f.recompute_modules,
         "Megatron-Core's --recompute-modules under --recompute selective (which it implies), comma-separated: " +
             enum_help(kRecomputeModules) + " (default: core_attn)")
      ->type_name("LIST");
  sub.add_option("--recompute-layers", t.recompute_layers,
                 "Megatron-LM's --recompute-method block --recompute-num-layers N: under full recompute only the "
                 "first N layers of each stage (each chunk) recompute, the rest keep their activations (0: every "
                 "layer; plan: applied to the full-recompute rows)")
      ->type_name("N")
      ->check(whole_range(kRecomputeLayersRange))
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
          ->check(whole_range(kEpRange))
          ->capture_default_str();
  f.etp_option = sub.add_option("--etp", t.etp,
                                "Expert tensor parallelism (Megatron's --expert-tensor-parallel-size): each expert's "
                                "widths split over T ranks (default: --tp, Megatron's default)")
                     ->type_name("T")
                     ->check(whole_range(kEtpRange));
  f.capacity_option = sub.add_option("--moe-capacity-factor", t.moe_capacity_factor,
                                     "Megatron's --moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity: "
                                     "every expert takes X times its balanced share of tokens, padded or dropped to it "
                                     "(default: dropless)")
                          ->type_name("X")
                          ->check(fraction_range(kCapacityRange));
  sub.add_option("--moe-dispatcher", f.moe_dispatcher,
                 "How a mixture of experts' tokens reach their experts' ranks: " + enum_help(kMoeDispatchers))
      ->type_name("HOW")
      ->capture_default_str();
  sub.add_option("--cuda-graphs", f.cuda_graphs,
                 "What replays from CUDA graphs, the host launching the rest (Megatron-LM's --cuda-graph-impl): " +
                     enum_help(kCudaGraphs))
      ->type_name("WHAT")
      ->capture_default_str();
  f.cp_option = sub.add_option("--cp", t.cp,
                               "Context parallelism: each sequence split over C ranks, Megatron's ring attention "
                               "(GPUs = tp x cp x pp x dp; plan: searched unless given)")
                    ->type_name("C")
                    ->check(whole_range(kCpRange))
                    ->capture_default_str();
  sub.add_option("--offload-layers", t.offload_layers,
                 "Megatron-LM's --cpu-offloading-num-layers: the first N layers' activations go to host memory in "
                 "the forward and come back in the backward over the card's host link, beside the compute "
                 "(docs/costs.md; without pipeline parallelism and recompute, as Megatron-LM allows it; plan: "
                 "pp 1 and recompute none only)")
      ->type_name("N")
      ->check(whole_range(kOffloadLayersRange))
      ->capture_default_str();
  sub.add_flag("--moe-a2a-overlap", t.moe_a2a_overlap,
               "Megatron-Core's --overlap-moe-expert-parallel-comm: each fused backward of the steady state runs "
               "beside the device's next forward, the expert all-to-alls of each under the other's compute (a "
               "mixture of experts with --ep above 1, without full recompute; plan pairs 1F1B's and interleaved "
               "1F1B's ops so)");
  sub.add_option("--moe-comm-sms", t.moe_comm_sms,
                 "The SMs the expert all-to-alls' kernels hold while they overlap compute, in DualPipe's and "
                 "--moe-a2a-overlap's pairs (Megatron-Core's --moe-flex-dispatcher-num-sms; DeepEP's default, as "
                 "DeepSeek-V3's report gives it)")
      ->check(CLI::Range(1, 1024))
      ->default_val(20);
  sub.add_flag("--fp8-params", t.fp8_params,
               "Megatron-LM's --fp8-param-gather (Megatron-Bridge's FP8 presets set it): under --dtype fp8 the "
               "linear weights are kept as their FP8 copies alone, with no bf16 copy beside them (needs the "
               "distributed optimizer or ZeRO-2; plan: the FP8 precisions only)");
  sub.add_flag("--grad-reduce-in-bf16", t.grad_reduce_bf16,
               "Megatron-LM's option (Megatron-Bridge's recipes run it: ddp.grad_reduce_in_fp32 off): the gradients "
               "accumulate and reduce over data parallelism in bf16, 2 bytes a parameter instead of fp32's 4 "
               "(bf16 training; FSDP's too, as Megatron-FSDP runs it)");
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
  sub.add_option("--ddp-bucket-size", t.bucket_params,
                 "Megatron-LM's option: the parameters of each bucket the overlapped gradient reduction and weight "
                 "all-gather run by, on the first pipeline stage (Megatron-Core keeps every other stage one "
                 "bucket); default Megatron-Core's, max(40M, 1M x dp·cp). NeMo and Megatron-Bridge set 134217728")
      ->type_name("PARAMS")
      ->check(CLI::Range(kBucketParamsRange.least, kBucketParamsRange.most));
  sub.add_flag("--param-gather-at-step-start", t.param_gather_at_step_start,
               "Megatron-Core up to r0.8: --overlap-param-gather's first bucket is dispatched by the optimizer's "
               "zero_grad at the step's start, so a later pipeline stage gathers it while it waits for the first "
               "activations; from r0.9 (the default) each stage dispatches it at its first forward");
  sub.add_flag("--sequence-parallel,!--no-sequence-parallel", t.sequence_parallel,
               "Megatron-LM's option: the norms, residual adds and dropouts between tensor-parallel blocks run on "
               "each rank's share of the tokens; off, every rank runs them on all tokens and keeps their tensors "
               "whole, as Megatron-LM before 2022 and Megatron-DeepSpeed (default on)");
  sub.add_flag("--tp-comm-overlap,!--no-tp-comm-overlap", t.tp_comm_overlap,
               "Megatron-LM's option (Transformer Engine's userbuffers): each tensor-parallel gather and "
               "scatter of an attention or dense MLP linear runs in chunks beside its GEMM, and only what the GEMM "
               "does not cover shows (docs/costs.md; default off, as Megatron-LM's; needs --tp above 1)");
  sub.add_option("--fsdp-impl", f.fsdp_impl, "What runs --sharding params (default fsdp2): " + enum_help(kFsdpImpls))
      ->type_name("IMPL")
      ->transform(enum_choices_of(kFsdpImpls));
  sub.add_option("--tp-overlap-method", f.tp_overlap_method,
                 "What runs --tp-comm-overlap (default userbuffers): " + enum_help(kTpOverlapMethods))
      ->type_name("METHOD")
      ->transform(enum_choices_of(kTpOverlapMethods));
  sub.add_option("--gemm-efficiency", f.efficiency.gemm,
                 "Fraction of the peak FLOP rate a large, well-shaped GEMM sustains; each GEMM gets it times its "
                 "shape's tile and wave quantisation and roofline factor (default: the card's measured rate, "
                 "per precision, docs/costs.md; 0.7 for a card without one)")
      ->type_name("X")
      ->check(fraction_range(kEfficiencyRange));
  sub.add_option("--memory-efficiency", f.efficiency.memory,
                 "Fraction of the memory bandwidth element-wise kernels reach")
      ->type_name("X")
      ->check(fraction_range(kEfficiencyRange))
      ->capture_default_str();
  sub.add_option("--attention-efficiency", f.attention_efficiency,
                 "Fractions of the peak FLOP rate flash attention's kernel reaches, forward and backward, as F,B "
                 "(or one for both), taken as given; default --attention-kernel's measured rates by head dimension "
                 "and length at the card's sustained clock (docs/costs.md)")
      ->type_name("F,B");
  sub.add_option("--attention-kernel", f.attention_kernel,
                 "The fused attention kernel whose measured rates price the attention core (default " +
                     std::string(attention_kernel_name(Efficiency{}.attention_kernel)) +
                     "): " + enum_help(kAttentionKernels))
      ->type_name("KERNEL")
      ->transform(enum_choices_of(kAttentionKernels));
  sub.add_option("--gpus-per-node", f.gpus_per_node,
                 "GPUs of one NVLink domain that a job's consecutive ranks fill, which link directly; beyond them the "
                 "network (default: the GPU table's: 8 on HGX boards, 64 of a GB200/GB300 NVL72 rack's 72)")
      ->type_name("N")
      ->check(whole_range(kGpusPerNodeRange));
  sub.add_option("--network", f.network,
                 "The network between NVLink domains, in place of the GPU table's: hdr, ndr or xdr (InfiniBand, one "
                 "200, 400 or 800 Gb/s card per GPU), or the rate in Gb/s each way that each GPU gets (a node's cards' "
                 "rates over its GPUs: 4 x 100 Gb/s for 8 GPUs is 50), priced at InfiniBand's measured efficiency "
                 "(docs/costs.md)")
      ->type_name("NET");
  sub.add_option(
         "--loss", f.loss,
         "How the cross-entropy loss runs, which decides its memory and what its kernels move: " + enum_help(kLosses))
      ->type_name("LOSS")
      ->transform(enum_choices_of(kLosses))
      ->capture_default_str();
  sub.add_option("--elementwise", f.elementwise,
                 "How the norms, rotary embeddings and activations run, which decides what they move through "
                 "memory: " +
                     enum_help(kElementwises))
      ->type_name("HOW")
      ->transform(enum_choices_of(kElementwises))
      ->capture_default_str();
  f.rank_order_option =
      sub.add_option("--rank-order", f.rank_order,
                     "How ranks are numbered onto nodes, innermost first, which decides the links of the pipeline, "
                     "data- and expert-parallel groups: " +
                         enum_help(kRankOrders) + " (plan: both tried unless given)")
          ->type_name("ORDER")
          ->transform(enum_choices_of(kRankOrders))
          ->capture_default_str();
}

// What was on the command line, counted rather than compared with the defaults.
ModelFlags model_flags(const ModelOptions& f) {
  const auto given = [](const CLI::Option* o) { return o != nullptr && o->count() > 0; };
  ModelFlags flags = f;
  flags.given = {given(f.tp_option),
                 given(f.micro_batch_option),
                 given(f.recompute_option),
                 given(f.sharding_option),
                 given(f.ep_option),
                 given(f.cp_option),
                 given(f.overlap_param_gather_option),
                 given(f.rank_order_option)};
  return flags;
}

ModelInput read_model_input(const ModelOptions& f) {
  return pipeplan::read_model_input(model_flags(f));
}

SearchedSettings searched_settings(const ModelOptions& f) {
  return pipeplan::searched_settings(model_flags(f));
}

}  // namespace pipeplan::cli
