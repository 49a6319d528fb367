#pragma once
// How a model is trained: the settings the planner and `pipeplan profile` take on the command
// line (docs/costs.md, "Training settings").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "estimate/recompute_modules.hpp"
#include "model/enum_table.hpp"

namespace pipeplan {

enum class DType : unsigned char { BF16, FP16, FP32 };
enum class Recompute : unsigned char {
  None,       ///< keep every activation the backward needs
  Selective,  ///< Korthikanti et al. 2022: recompute the attention core, keep the rest
  Full,       ///< keep each layer's input only; the backward recomputes the layer's forward
  /// torchtitan's selective checkpointing by op (parallelize_llama.py's _save_list at 9dec370):
  /// keep the layer's input, flash attention's outputs and every second matrix product's output,
  /// recompute the rest in the backward (op_checkpoint.hpp).
  Ops,
};

/// Whether W runs inside B: a recompute that frees what it made again when the layer's backward
/// ends leaves nothing for a held-back W (docs/costs.md, "Memory").
[[nodiscard]] constexpr bool weight_gradients_in_backward(Recompute r) {
  return r == Recompute::Full || r == Recompute::Ops;
}

/// What the data-parallel replicas shard instead of each keeping a copy (docs/costs.md, "Memory").
enum class Sharding : unsigned char {
  None,       ///< every replica keeps all weights, gradients and optimizer states
  Optimizer,  ///< Megatron's --use-distributed-optimizer (ZeRO-1): master weights and Adam's moments
  Gradients,  ///< those and the fp32 gradients (ZeRO-2), reduce-scattered as each W makes them
  Params,     ///< those and the weights (ZeRO-3, FSDP2 as torchtitan runs it; fsdp.hpp)
};

/// How FP8 training scales its tensors (docs/costs.md, "FP8"): the linear layers' GEMMs run in
/// FP8 under it while weights and the activations between kernels stay 16-bit.
enum class Fp8Recipe : unsigned char {
  Tensorwise,  ///< one fp32 scale per tensor from its current amax: TE Float8CurrentScaling, torchao tensorwise
  Delayed,     ///< one scale per tensor from an amax history: TE DelayedScaling
  Blockwise,   ///< DeepSeek-V3's 1x128 activation and 128x128 weight blocks: TE Float8BlockScaling
  Mxfp8,       ///< 32-element blocks with E8M0 scales, Blackwell's tensor cores: TE MXFP8BlockScaling
};

/// How a mixture of experts' tokens reach their experts' ranks (docs/costs.md, "Mixture of
/// experts"; moe_work.hpp): Megatron-Core's --moe-token-dispatcher-type.
enum class MoeDispatcher : unsigned char {
  AllToAll,  ///< alltoall: every routed copy goes to its expert's rank
  /// flex (DeepEP, HybridEP): a token goes once to each rank, and across NVLink domains once to
  /// each domain, holding any of its experts, and is fanned out there
  Flex,
};

/// Which of a step's kernels replay from CUDA graphs instead of being launched one by one from the
/// host (docs/costs.md, "Host time"; host_launch.hpp): Megatron-LM's --cuda-graph-impl and
/// --cuda-graph-modules.
enum class CudaGraphs : unsigned char {
  None,  ///< every kernel launched from Python as the framework runs it (the default of Megatron-LM and PyTorch)
  /// Transformer Engine's per-layer graphs of a mixture of experts' router and dispatch
  /// preprocessing (--cuda-graph-impl transformer_engine --cuda-graph-modules moe_router
  /// moe_preprocess)
  MoeRouter,
  /// those and the attention block (--cuda-graph-modules attn moe_router moe_preprocess); the
  /// MLP, the experts and the token exchange stay eager
  Attn,
  Layers,  ///< each whole layer replayed from its own graph (--cuda-graph-impl local, its default modules)
  Full,    ///< the whole forward and backward captured as one graph (--cuda-graph-impl full_iteration)
};

/// How the cross-entropy loss runs over the logits (docs/costs.md, "Memory"): what it keeps for
/// the backward and what it holds while it runs.
/// Megatron's three keep what the unfused one keeps; they differ in the kernels that run
/// (elementwise_kernels.hpp, loss_traffic).
enum class Loss : unsigned char {
  VocabParallel,       ///< Megatron-LM's vocabulary-parallel cross entropy, op by op: an fp32 copy, in place
  Torch,               ///< torch.nn.functional.cross_entropy on an fp32 copy of the logits, as torchtitan computes it
  VocabParallelFused,  ///< the same, its ops fused (Megatron-LM's --cross-entropy-loss-fusion, native)
  TransformerEngine,   ///< TE's Triton cross entropy (--cross-entropy-fusion-impl te): the fp32 gradient made in F
};

/// How the norms, rotary embeddings and gated activations run (docs/costs.md, "Element-wise
/// kernels"; elementwise_kernels.hpp): what they move through memory, and what the norms keep.
enum class Elementwise : unsigned char {
  Fused,  ///< each one kernel: Transformer Engine's, apex's, Megatron-LM's fusions, torch.compile's
  Eager,  ///< op by op, as PyTorch runs torchtitan's modules uncompiled: RMSNorm and RoPE through fp32 copies
  /// op by op but for the norms, one kernel each: torchtitan uncompiled with its 2024 Triton
  /// RMSNorm (norm_type "fused_rmsnorm")
  EagerFusedNorm,
};

/// Which FSDP runs --sharding params (fsdp.hpp): PyTorch's FSDP2 (torchtitan), which copies each
/// gathered buffer out into the parameters and the gradients into the reduce-scatter's buffer on
/// the compute stream, or Megatron-FSDP, whose parameters and gradients are views of its
/// buckets (megatron_fsdp/param_and_grad_buffer.py at d98e8a64: "zero-copy").
enum class FsdpImpl : unsigned char { Fsdp2, Megatron };

/// Which mechanism runs tensor parallelism's collectives beside their GEMMs under
/// --tp-comm-overlap (tp_overlap.hpp, piece_gemms.cpp).
enum class TpOverlapMethod : unsigned char {
  Userbuffers,  ///< Transformer Engine's userbuffers (Megatron-LM's --tp-comm-overlap)
  /// PyTorch's micro-pipelined tensor parallelism (torchtitan's enable_async_tensor_parallel): the
  /// same chunked gathers and scatters, but a scatter fuses only with a lone product, so B's
  /// scatter of input gradients summed over several linears runs alone
  AsyncTp,
};

/// The fused attention kernel the framework runs, whose measured rate prices the core
/// (attention_kernel.hpp).
enum class AttentionKernel : unsigned char {
  Cudnn,            ///< cuDNN's fused attention, through Transformer Engine
  FlashAttention2,  ///< FlashAttention-2, what PyTorch's scaled_dot_product_attention runs on Hopper
  FlashAttention3,  ///< FlashAttention-3, Hopper's warp-specialised kernel
};

inline constexpr EnumTable<DType, 3> kDTypes = {{
    {"bf16", DType::BF16, "bfloat16"},
    {"fp16", DType::FP16, "IEEE half precision"},
    {"fp32", DType::FP32, "IEEE single precision"},
}};
inline constexpr EnumTable<Recompute, 4> kRecomputes = {{
    {"none", Recompute::None, "keep every activation the backward needs"},
    {"selective", Recompute::Selective, "recompute the attention core"},
    {"full", Recompute::Full, "keep each layer's input only"},
    {"ops", Recompute::Ops,
     "torchtitan's selective checkpointing by op: keep flash attention's outputs and every second matrix "
     "product's, recompute the rest"},
}};
inline constexpr EnumTable<Sharding, 4> kShardings = {{
    {"none", Sharding::None, "every replica keeps all weights, gradients and optimizer states"},
    {"optimizer", Sharding::Optimizer, "Megatron's distributed optimizer (ZeRO-1): master weights and Adam's moments"},
    {"gradients", Sharding::Gradients, "also the fp32 gradients (ZeRO-2)"},
    {"params", Sharding::Params, "also the weights, gathered layer by layer (ZeRO-3, FSDP2 as torchtitan runs it)"},
}};

inline constexpr EnumTable<Loss, 4> kLosses = {{
    {"vocab-parallel", Loss::VocabParallel,
     "Megatron-LM's vocabulary-parallel cross entropy, as it runs by default: an fp32 copy of the logits, worked on "
     "in place op by op"},
    {"vocab-parallel-fused", Loss::VocabParallelFused,
     "the same with Megatron-LM's --cross-entropy-loss-fusion (its native fused kernels)"},
    {"te", Loss::TransformerEngine,
     "Transformer Engine's fused cross entropy (--cross-entropy-fusion-impl te, what Megatron-Bridge's recipes run): "
     "two passes over the 16-bit logits, the fp32 gradient made in the forward"},
    {"torch", Loss::Torch,
     "torch.nn.functional.cross_entropy on an fp32 copy of the logits, as torchtitan runs it: its log-softmax kept, "
     "its gradients made anew; with --tp above 1 through PyTorch's loss parallelism, op by op, as torchtitan "
     "enables it there"},
}};

inline constexpr EnumTable<MoeDispatcher, 2> kMoeDispatchers = {{
    {"alltoall", MoeDispatcher::AllToAll,
     "Megatron-Core's all-to-all dispatcher: every routed copy to its expert's rank"},
    {"flex", MoeDispatcher::Flex,
     "its flex dispatcher (DeepEP, HybridEP): a token once to each rank, and each other NVLink domain, holding any "
     "of its experts"},
}};

inline constexpr EnumTable<CudaGraphs, 5> kCudaGraphs = {{
    {"none", CudaGraphs::None, "every kernel launched from the host, as PyTorch runs the framework"},
    {"moe-router", CudaGraphs::MoeRouter,
     "Transformer Engine's per-layer graphs of the MoE router and the dispatch's preprocessing"},
    {"attn", CudaGraphs::Attn, "those and of the attention block"},
    {"layers", CudaGraphs::Layers, "each whole layer replayed from its own graph (Megatron-Core's local graphs)"},
    {"full", CudaGraphs::Full, "the whole forward and backward replayed as one graph: no launch from the host"},
}};

inline constexpr EnumTable<Elementwise, 3> kElementwises = {{
    {"fused", Elementwise::Fused,
     "each norm, rotary embedding and activation one kernel (Transformer Engine, Megatron-LM, torch.compile)"},
    {"eager", Elementwise::Eager,
     "op by op, as PyTorch runs torchtitan's modules without torch.compile: RMSNorm and RoPE through fp32 copies"},
    {"eager-fused-norm", Elementwise::EagerFusedNorm,
     "op by op but for the norms, one kernel each (torchtitan uncompiled with its Triton fused_rmsnorm)"},
}};

inline constexpr EnumTable<AttentionKernel, 3> kAttentionKernels = {{
    {"cudnn", AttentionKernel::Cudnn,
     "cuDNN's fused attention, as Transformer Engine runs it (Megatron-LM, NeMo, Megatron-Bridge)"},
    {"fa2", AttentionKernel::FlashAttention2,
     "FlashAttention-2, what PyTorch's scaled_dot_product_attention runs on Hopper (torchtitan)"},
    {"fa3", AttentionKernel::FlashAttention3, "FlashAttention-3"},
}};

inline constexpr EnumTable<FsdpImpl, 2> kFsdpImpls = {{
    {"fsdp2", FsdpImpl::Fsdp2,
     "PyTorch's FSDP2 (torchtitan): each gather copied out into the parameters and each reduce-scatter's "
     "gradients copied in, on the compute stream"},
    {"megatron", FsdpImpl::Megatron,
     "Megatron-FSDP (Megatron-LM's --use-megatron-fsdp, NeMo, Megatron-Bridge): parameters and gradients are "
     "views of its buckets, no copies"},
}};

inline constexpr EnumTable<TpOverlapMethod, 2> kTpOverlapMethods = {{
    {"userbuffers", TpOverlapMethod::Userbuffers,
     "Transformer Engine's userbuffers, as Megatron-LM, NeMo and Megatron-Bridge run them"},
    {"async-tp", TpOverlapMethod::AsyncTp,
     "PyTorch's async tensor parallelism (torchtitan): B's scatter after several linears' summed input gradients "
     "runs alone"},
}};

inline constexpr EnumTable<Fp8Recipe, 4> kFp8Recipes = {{
    {"tensorwise", Fp8Recipe::Tensorwise, "one scale per tensor from its current amax (TE Float8CurrentScaling)"},
    {"delayed", Fp8Recipe::Delayed, "one scale per tensor from an amax history (TE DelayedScaling)"},
    {"blockwise", Fp8Recipe::Blockwise, "DeepSeek-V3's 1x128 and 128x128 blocks (TE Float8BlockScaling)"},
    {"mxfp8", Fp8Recipe::Mxfp8, "32-element blocks, E8M0 scales, Blackwell only (TE MXFP8BlockScaling)"},
}};

/// "bf16", "fp16", "fp32" / "none", "selective", "full" / "none", "optimizer", "gradients", "params", and
/// back; nullopt for other names.
[[nodiscard]] std::optional<DType> dtype_named(std::string_view name);
[[nodiscard]] std::string_view dtype_name(DType dtype);
[[nodiscard]] std::optional<Recompute> recompute_named(std::string_view name);
[[nodiscard]] std::string_view recompute_name(Recompute recompute);
/// The recompute as reports say it: its name, and under selective recompute its modules,
/// "selective (layernorm, moe_act)".
[[nodiscard]] std::string recompute_text(Recompute recompute, RecomputeModules modules);
[[nodiscard]] std::optional<Sharding> sharding_named(std::string_view name);
[[nodiscard]] std::string_view sharding_name(Sharding sharding);
/// "vocab-parallel", "torch", and back; nullopt for other names.
[[nodiscard]] std::optional<Loss> loss_named(std::string_view name);
[[nodiscard]] std::string_view loss_name(Loss loss);
/// "alltoall", "flex", and back; nullopt for other names.
[[nodiscard]] std::optional<MoeDispatcher> moe_dispatcher_named(std::string_view name);
[[nodiscard]] std::string_view moe_dispatcher_name(MoeDispatcher dispatcher);
/// "none", "moe-router", "attn", "layers", "full", and back; nullopt for other names.
[[nodiscard]] std::optional<CudaGraphs> cuda_graphs_named(std::string_view name);
[[nodiscard]] std::string_view cuda_graphs_name(CudaGraphs graphs);
/// "fused", "eager", "eager-fused-norm", and back; nullopt for other names.
[[nodiscard]] std::optional<Elementwise> elementwise_named(std::string_view name);
[[nodiscard]] std::string_view elementwise_name(Elementwise elementwise);
/// "userbuffers", "async-tp"; nullopt for other names.
[[nodiscard]] std::optional<TpOverlapMethod> tp_overlap_method_named(std::string_view name);
[[nodiscard]] std::optional<FsdpImpl> fsdp_impl_named(std::string_view name);
/// "cudnn", "fa2", "fa3", and back; nullopt for other names.
[[nodiscard]] std::optional<AttentionKernel> attention_kernel_named(std::string_view name);
[[nodiscard]] std::string_view attention_kernel_name(AttentionKernel kernel);
/// "tensorwise", "delayed", "blockwise", "mxfp8", and back; nullopt for other names.
[[nodiscard]] std::optional<Fp8Recipe> fp8_recipe_named(std::string_view name);
[[nodiscard]] std::string_view fp8_recipe_name(Fp8Recipe recipe);

/// Bytes of one activation or weight element in `dtype`.
[[nodiscard]] int element_bytes(DType dtype);

/// The storage type and, for FP8 training, the recipe of its linear GEMMs: one precision the
/// planner can try (`plan --dtype bf16,fp8`).
struct Precision {
  DType dtype = DType::BF16;
  std::optional<Fp8Recipe> fp8;
  bool operator==(const Precision&) const = default;
};

/// "bf16", "fp8 tensorwise": a precision as reports and tables write it.
[[nodiscard]] std::string precision_name(const Precision& precision);

struct TrainingSettings {
  int seq = 2048;             ///< tokens per sequence
  int micro_batch = 1;        ///< sequences per micro-batch
  int global_batch = 0;       ///< sequences per step, over data parallelism (the planner needs it)
  DType dtype = DType::BF16;  ///< weights and activations as stored; BF16 under FP8 training
  /// FP8 training (`--dtype fp8`): the linear layers' GEMMs in FP8 under this recipe, everything
  /// else in `dtype` (fp8_recipe.hpp); nullopt: every GEMM in `dtype`.
  std::optional<Fp8Recipe> fp8;
  int tp = 1;  ///< tensor parallelism, with sequence parallelism unless sequence_parallel is off (Megatron-LM)
  int ep = 1;  ///< expert parallelism: a mixture of experts' experts spread over ep ranks of a stage (moe_work.hpp)
  int cp = 1;  ///< context parallelism: each sequence split over cp ranks, ring attention (context_parallel.hpp)
  /// Expert tensor parallelism (Megatron's --expert-tensor-parallel-size); 0: equal to tp, Megatron's default.
  int etp = 0;
  [[nodiscard]] int expert_tp() const { return etp > 0 ? etp : tp; }
  /// Megatron's --moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity: every
  /// expert processes capacity_factor x its balanced share of routed tokens, padded or dropped
  /// to it; 0: dropless (moe_work.hpp).
  double moe_capacity_factor = 0;
  MoeDispatcher moe_dispatcher = MoeDispatcher::AllToAll;  ///< how routed tokens reach their experts
  Recompute recompute = Recompute::None;
  /// Under selective recompute, the modules that recompute (Megatron-Core's --recompute-modules,
  /// recompute_modules.hpp): the attention core unless told otherwise.
  RecomputeModules recompute_modules = kDefaultRecomputeModules;
  /// Megatron-LM's --recompute-method block --recompute-num-layers N under full recompute: only
  /// the first N layers of each stage (each model chunk under interleaving) recompute, the rest
  /// keep their activations (Megatron-LM's megatron/core/recompute.py); 0: every layer, its
  /// uniform method one layer a group. Only under --recompute full (recompute_block.hpp).
  int recompute_layers = 0;
  Sharding sharding = Sharding::None;    ///< over the dp·cp data-parallel ranks; nothing to shard without them
  FsdpImpl fsdp_impl = FsdpImpl::Fsdp2;  ///< --fsdp-impl: which FSDP runs Sharding::Params
  bool flash_attention = true;
  /// Megatron-LM's --overlap-grad-reduce: each bucket's gradient reduction starts as soon as the
  /// last micro-batch's backward has made it, under the rest of that backward, instead of after it.
  bool overlap_grad_reduce = false;
  /// Megatron-LM's --overlap-param-gather (with the distributed optimizer): the stepped weights'
  /// all-gather runs under the next step's forward instead of before it.
  bool overlap_param_gather = false;
  /// Megatron-LM's --ddp-bucket-size: the parameters of each gradient bucket the overlaps reduce
  /// and gather by (gradient_buckets.hpp); 0: Megatron-Core's default, max(40M, 1M · dp·cp).
  std::int64_t bucket_params = 0;
  /// Megatron-Core up to r0.8 (--param-gather-at-step-start): with --overlap-param-gather the first
  /// bucket's all-gather is dispatched by the optimizer's zero_grad at the step's start, so on a
  /// device whose first stage waits for the stages before it, it runs under that wait; from r0.9
  /// each device dispatches it at its first forward (gradient_buckets.hpp).
  bool param_gather_at_step_start = false;
  /// Megatron-LM's --grad-reduce-in-bf16 (Megatron-Bridge's ddp.grad_reduce_in_fp32 = False, which
  /// its performance recipes set): the gradient buffers, their accumulation and the data-parallel
  /// reduction in bf16, 2 bytes a parameter instead of fp32's 4 (bf16 training; Megatron-FSDP's too).
  bool grad_reduce_bf16 = false;
  /// Megatron-LM's --tp-comm-overlap: Transformer Engine's userbuffers run each tensor-parallel
  /// gather and scatter of a TE linear in chunks beside its GEMM (tp_overlap.hpp); off, each
  /// collective runs alone on the compute stream.
  bool tp_comm_overlap = false;
  /// What runs that overlap (--tp-overlap-method); read only under tp_comm_overlap.
  TpOverlapMethod tp_overlap_method = TpOverlapMethod::Userbuffers;
  /// Megatron-LM's --sequence-parallel (Korthikanti et al. 2022): the norms, residual adds and
  /// dropouts between the tensor-parallel blocks run on each rank's 1/t of the tokens. Off (as
  /// Megatron-LM ran before it, and Megatron-DeepSpeed), every rank runs them on all T tokens
  /// and keeps their tensors whole; the gathers and scatters become all-reduces of the same time.
  bool sequence_parallel = true;
  Loss loss = Loss::VocabParallel;
  Elementwise elementwise = Elementwise::Fused;  ///< the norms, RoPE and gated activations: fused or op by op
  /// Megatron-LM's --cpu-offloading-num-layers: the first N layers' activations copied to host
  /// memory in the forward and back in the backward, beside the compute (activation_offload.hpp);
  /// 0: none. Only without pipeline parallelism and recompute, as Megatron-LM allows it.
  int offload_layers = 0;
  /// Megatron-LM's --fp8-param-gather (distributed_data_parallel_config.py: "keep the compute
  /// param in fp8 ... and perform the param all-gather in fp8"), which Megatron-Bridge's FP8
  /// presets set: under FP8 training the linear weights are their FP8 copies alone, no 16-bit
  /// copy beside them (fp8_recipe.hpp). No effect on a precision without FP8.
  bool fp8_params = false;
  /// What replays from CUDA graphs (host_launch.hpp): the host's time to launch the rest is
  /// charged where the device waits for it.
  CudaGraphs cuda_graphs = CudaGraphs::None;
  /// Megatron-Core's --overlap-moe-expert-parallel-comm: in the steady state each fused backward
  /// runs beside the device's next forward, one's expert all-to-alls under the other's compute
  /// (plan pairs the schedule's ops, expert_overlap_pairs.hpp; the pair is timed as DualPipe's,
  /// moe_work.hpp). A mixture of experts with expert parallelism, without full recompute.
  bool moe_a2a_overlap = false;
  /// The SMs the expert all-to-alls' kernels hold while they run beside compute, in DualPipe's
  /// and Megatron-Core's overlapped pairs (moe_work.hpp): DeepSeek-V3's report and DeepEP's
  /// default, 20 (Megatron-Core's --moe-flex-dispatcher-num-sms; Megatron-Bridge's HybridEP
  /// configurations set 32).
  int moe_comm_sms = 20;

  bool operator==(const TrainingSettings&) const = default;
};

/// Bytes of a gradient as the data-parallel buffers accumulate and reduce it.
[[nodiscard]] constexpr double gradient_bytes(const TrainingSettings& tr) {
  return tr.grad_reduce_bf16 ? 2.0 : 4.0;
}

/// Whether `tr` recomputes module `m`: under selective recompute, when its modules name it.
[[nodiscard]] constexpr bool recomputes(const TrainingSettings& tr, RecomputeModule m) {
  return tr.recompute == Recompute::Selective && has_module(tr.recompute_modules, m);
}

/// Efficiencies the analytic costs assume: the fraction of the card's peak a GEMM reaches, and
/// of its memory bandwidth an element-wise kernel reaches (docs/costs.md).
struct Efficiency {
  /// The fraction of the peak a large, well-shaped GEMM sustains; 0: the card's architecture's
  /// measured rate for the product's precision, 0.7 where none is measured (sustained_gemm.hpp).
  double gemm = 0;
  double memory = 0.7;
  /// Fractions of the dense peak the fused (flash) attention kernel reaches in training, forward
  /// and backward; 0: `attention_kernel`'s measured ones at the card's sustained clock
  /// (attention_kernel.hpp). Without flash attention the core is cuBLAS's batched products, at
  /// `gemm` times what their shapes keep (unfused_attention.hpp).
  double attention_forward = 0;
  double attention_backward = 0;
  AttentionKernel attention_kernel = AttentionKernel::Cudnn;
};

}  // namespace pipeplan
