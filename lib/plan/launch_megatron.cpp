// A row as Megatron-LM's arguments (docs/launch.md, "Megatron-LM"). Every flag was read in
// NVIDIA/Megatron-LM at kMegatronCommit: megatron/training/arguments.py's add_argument calls and
// the flags its ArgumentGroupFactory builds from TransformerConfig / ModelParallelConfig fields
// (tests/data/launch/megatron-args.txt; tests/launch_test.cpp holds every emitted flag to it).
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "estimate/fp8_recipe.hpp"
#include "model/error.hpp"
#include "plan/launch.hpp"
#include "schedules/generator.hpp"

namespace pipeplan {

namespace {

// Megatron-LM's pipeline schedules (megatron/core/pipeline_parallel/schedules.py,
// get_forward_backward_func): 1F1B without interleaving, interleaved 1F1B with virtual stages on
// the looped placement (stage s on rank s mod P), no pipelining at pp 1. pipeplan's generators
// that run them; any other runs as the closest, 1F1B at one chunk and interleaved 1F1B at
// several, on the row's own layout, so a new generator needs no row here.
constexpr std::array<std::string_view, 2> kMegatronSchedules = {"1f1b", "interleaved"};

}  // namespace

bool megatron_runs(std::string_view schedule) {
  return std::find(kMegatronSchedules.begin(), kMegatronSchedules.end(), schedule) != kMegatronSchedules.end();
}

namespace {

struct MegatronInput {
  const PlanRequest& request;
  const PlanRow& row;  ///< as Megatron runs it
  Layout layout;
  bool even = false;    ///< Megatron's default split: no layout flag
  bool padded = false;  ///< the split counting E and L as a layer each
  int group = 0;        ///< micro-batches per virtual-stage group where not Megatron's default P
  [[nodiscard]] bool custom_layout() const { return row.pp > 1 && !even && !padded; }
  [[nodiscard]] bool data_parallel() const { return row.dp * row.cp > 1; }
  [[nodiscard]] bool fsdp() const { return row.sharding == Sharding::Gradients || row.sharding == Sharding::Params; }
};

using Value = std::optional<std::string>;
const Value kSwitch = std::string();

Value when(bool emit, const std::string& value) {
  return emit ? Value(value) : std::nullopt;
}

// The arguments, in the order they are written; each says when the row calls for it (nullopt:
// not emitted, Megatron's default is the row's) and its value ("" for a switch).
struct MegatronArg {
  std::string_view flag;
  Value (*value)(const MegatronInput&);
  bool words = false;  ///< an argparse list (nargs "+"): the value's words each an argument
};

constexpr std::array kMegatronArgs = {
    MegatronArg{"--tensor-model-parallel-size",
                [](const MegatronInput& in) { return Value(std::to_string(in.row.tp)); }},
    MegatronArg{"--pipeline-model-parallel-size",
                [](const MegatronInput& in) { return Value(std::to_string(in.row.pp)); }},
    // At most one of the three virtual-stage flags (arguments.py refuses two): the layout,
    // which implies its virtual stages, or the count over an even split.
    // Without a pipeline a row's chunks are one device's layers in order, which Megatron-LM runs
    // without virtual stages (it refuses them at pp 1: arguments.py).
    MegatronArg{"--num-virtual-stages-per-pipeline-rank",
                [](const MegatronInput& in) {
                  return when(in.row.pp > 1 && in.row.chunks > 1 && !in.custom_layout(), std::to_string(in.row.chunks));
                }},
    MegatronArg{
        "--pipeline-model-parallel-layout",
        [](const MegatronInput& in) { return when(in.custom_layout(), repeated_layout(in.row.megatron_layout)); }},
    MegatronArg{
        "--account-for-embedding-in-pipeline-split",
        [](const MegatronInput& in) { return in.row.pp > 1 && !in.even && in.padded ? kSwitch : std::nullopt; }},
    MegatronArg{
        "--account-for-loss-in-pipeline-split",
        [](const MegatronInput& in) { return in.row.pp > 1 && !in.even && in.padded ? kSwitch : std::nullopt; }},
    MegatronArg{"--microbatch-group-size-per-virtual-pipeline-stage",
                [](const MegatronInput& in) { return when(in.group > 0, std::to_string(in.group)); }},
    MegatronArg{"--context-parallel-size",
                [](const MegatronInput& in) { return when(in.row.cp > 1, std::to_string(in.row.cp)); }},
    MegatronArg{"--expert-model-parallel-size",
                [](const MegatronInput& in) { return when(in.row.ep > 1, std::to_string(in.row.ep)); }},
    // Megatron sets it to tp when not given (arguments.py): written only where the row differs.
    // The dispatcher pipeplan simulates (Megatron-Core's default is allgather): flex with
    // DeepEP's kernels for the flex one.
    MegatronArg{"--moe-token-dispatcher-type",
                [](const MegatronInput& in) {
                  return when(in.request.model.is_moe(),
                              std::string(moe_dispatcher_name(in.request.training.moe_dispatcher)));
                }},
    MegatronArg{"--moe-flex-dispatcher-backend",
                [](const MegatronInput& in) {
                  return when(in.request.model.is_moe() && in.request.training.moe_dispatcher == MoeDispatcher::Flex,
                              "deepep");
                }},
    // CUDA graphs as pipeplan prices them (host_launch.hpp): Transformer Engine's per-layer
    // graphs of the attention and, in a mixture of experts, the router and the dispatch's
    // preprocessing, as Megatron-Bridge sets them for dropless MoE; or the whole iteration.
    MegatronArg{"--cuda-graph-impl",
                [](const MegatronInput& in) {
                  switch (in.request.training.cuda_graphs) {
                    case CudaGraphs::None:
                      return Value();
                    case CudaGraphs::Layers:
                      return Value("local");
                    case CudaGraphs::Full:
                      return Value("full_iteration");
                    case CudaGraphs::MoeRouter:
                    case CudaGraphs::Attn:
                      return Value("transformer_engine");
                  }
                  return Value();
                }},
    MegatronArg{"--cuda-graph-modules",
                [](const MegatronInput& in) {
                  const CudaGraphs g = in.request.training.cuda_graphs;
                  const bool moe = in.request.model.is_moe();
                  if (g == CudaGraphs::Attn) return Value(moe ? "attn moe_router moe_preprocess" : "attn");
                  return when(g == CudaGraphs::MoeRouter, "moe_router moe_preprocess");
                },
                true},
    MegatronArg{"--expert-tensor-parallel-size",
                [](const MegatronInput& in) {
                  return when(in.request.model.is_moe() && in.row.etp != in.row.tp, std::to_string(in.row.etp));
                }},
    // pipeplan prices tensor parallelism with sequence parallelism (estimate/training.hpp).
    MegatronArg{"--sequence-parallel",
                [](const MegatronInput& in) {
                  return in.row.tp > 1 && in.request.training.sequence_parallel ? kSwitch : std::nullopt;
                }},
    // Transformer Engine's userbuffers, which need sequence parallelism (tp above 1).
    MegatronArg{"--tp-comm-overlap",
                [](const MegatronInput& in) {
                  return in.row.tp > 1 && in.request.training.tp_comm_overlap ? kSwitch : std::nullopt;
                }},
    // The expert all-to-alls beside the other micro-batch's compute (transformer_config.py).
    MegatronArg{"--overlap-moe-expert-parallel-comm",
                [](const MegatronInput& in) { return in.request.training.moe_a2a_overlap ? kSwitch : std::nullopt; }},
    // Its native fused cross entropy (--cross-entropy-fusion-impl defaults to native), also for
    // TE's fused one, which Megatron-LM refuses (a gap, below).
    MegatronArg{"--cross-entropy-loss-fusion",
                [](const MegatronInput& in) {
                  const Loss loss = in.request.training.loss;
                  return loss == Loss::VocabParallelFused || loss == Loss::TransformerEngine ? kSwitch : std::nullopt;
                }},
    MegatronArg{
        "--use-tp-pp-dp-mapping",
        [](const MegatronInput& in) { return in.row.rank_order == RankOrder::TpPpDp ? kSwitch : std::nullopt; }},
    MegatronArg{"--micro-batch-size",
                [](const MegatronInput& in) { return Value(std::to_string(in.row.micro_batch)); }},
    MegatronArg{"--global-batch-size",
                [](const MegatronInput& in) { return Value(std::to_string(in.request.training.global_batch)); }},
    MegatronArg{"--seq-length", [](const MegatronInput& in) { return Value(std::to_string(in.request.training.seq)); }},
    // Selective: Megatron's default --recompute-modules, core_attn, the attention core as
    // pipeplan recomputes it. Full: every layer's input kept, each layer recomputed alone
    // (uniform, one layer a unit), as pipeplan's full recompute; with a block, each stage's
    // first N layers so and the rest not (block, recompute.py).
    MegatronArg{"--recompute-granularity",
                [](const MegatronInput& in) {
                  return when(in.row.recompute != Recompute::None, std::string(recompute_name(in.row.recompute)));
                }},
    // Other modules than its default core_attn, by Megatron-Core's names (recompute_modules.hpp).
    MegatronArg{"--recompute-modules",
                [](const MegatronInput& in) {
                  return when(in.row.names_recompute_modules(), recompute_modules_names(in.row.recompute_modules, " "));
                },
                true},
    MegatronArg{"--recompute-method",
                [](const MegatronInput& in) {
                  return when(in.row.recompute == Recompute::Full, in.row.recompute_layers > 0 ? "block" : "uniform");
                }},
    MegatronArg{"--recompute-num-layers",
                [](const MegatronInput& in) {
                  return when(in.row.recompute == Recompute::Full,
                              std::to_string(std::max(1, in.row.recompute_layers)));
                }},
    // Its activations only (cpu_offloading_activations, the default), as pipeplan offloads them;
    // arguments.py turns --cpu-offloading on with a count above 0.
    // The weights kept in FP8 alone and gathered so (distributed_data_parallel_config.py).
    MegatronArg{"--fp8-param-gather",
                [](const MegatronInput& in) {
                  return in.request.training.fp8_params && in.row.precision.fp8 ? kSwitch : std::nullopt;
                }},
    MegatronArg{"--cpu-offloading-num-layers",
                [](const MegatronInput& in) {
                  return when(in.request.training.offload_layers > 0,
                              std::to_string(in.request.training.offload_layers));
                }},
    // ZeRO-1 is the distributed optimizer; ZeRO-2 and ZeRO-3 are Megatron-FSDP's optim_grads
    // and optim_grads_params, which arguments.py runs only with the fsdp_dtensor checkpoints.
    MegatronArg{
        "--use-distributed-optimizer",
        [](const MegatronInput& in) { return in.row.sharding == Sharding::Optimizer ? kSwitch : std::nullopt; }},
    MegatronArg{"--use-megatron-fsdp", [](const MegatronInput& in) { return in.fsdp() ? kSwitch : std::nullopt; }},
    MegatronArg{"--data-parallel-sharding-strategy",
                [](const MegatronInput& in) {
                  return when(in.fsdp(), in.row.sharding == Sharding::Gradients ? "optim_grads" : "optim_grads_params");
                }},
    MegatronArg{"--ckpt-format", [](const MegatronInput& in) { return when(in.fsdp(), "fsdp_dtensor"); }},
    MegatronArg{"--overlap-grad-reduce",
                [](const MegatronInput& in) {
                  return in.data_parallel() && in.request.training.overlap_grad_reduce ? kSwitch : std::nullopt;
                }},
    // The gather of stepped weights exists only where weights are sharded.
    MegatronArg{"--overlap-param-gather",
                [](const MegatronInput& in) {
                  return in.data_parallel() && in.row.sharding != Sharding::None &&
                                 in.request.training.overlap_param_gather
                             ? kSwitch
                             : std::nullopt;
                }},
    // Megatron-Core buckets only with --overlap-grad-reduce (distributed_data_parallel.py).
    MegatronArg{"--ddp-bucket-size",
                [](const MegatronInput& in) {
                  const TrainingSettings& t = in.request.training;
                  return when(in.data_parallel() && t.overlap_grad_reduce && t.bucket_params > 0,
                              std::to_string(t.bucket_params));
                }},
    MegatronArg{"--grad-reduce-in-bf16",
                [](const MegatronInput& in) { return in.request.training.grad_reduce_bf16 ? kSwitch : std::nullopt; }},
    MegatronArg{"--bf16",
                [](const MegatronInput& in) { return in.row.precision.dtype == DType::BF16 ? kSwitch : std::nullopt; }},
    MegatronArg{"--fp16",
                [](const MegatronInput& in) { return in.row.precision.dtype == DType::FP16 ? kSwitch : std::nullopt; }},
    // FP8 as Transformer Engine's hybrid format (E4M3 forward, E5M2 gradients) under the row's
    // recipe; Megatron's recipe names are pipeplan's (TransformerConfig.fp8_recipe).
    MegatronArg{"--fp8-format",
                [](const MegatronInput& in) { return when(in.row.precision.fp8.has_value(), "hybrid"); }},
    MegatronArg{"--fp8-recipe",
                [](const MegatronInput& in) {
                  return in.row.precision.fp8 ? Value(std::string(fp8_recipe_name(*in.row.precision.fp8)))
                                              : std::nullopt;
                }},
};

// PyTorch's rounds, which the planner's interleaved rows run (lib/schedules/interleaved.cpp):
// groups of M / max(1, floor(M/P)) micro-batches. Megatron's default group is P; the same
// groups when P divides M.
int pytorch_round(int microbatches, int pp) {
  return microbatches / std::max(1, microbatches / pp);
}

}  // namespace

// The layout with each run of equal stages written once in Megatron's own repetition,
// "Et*2|(t*2|)*13(t*3|)*17tL": PipelineParallelLayerLayout.parse_str_to_list unrolls "(...)*n"
// (no nesting) and then "x*n", and splits the stages at '|'. A run's "|" after each copy leads
// into the next stage; a run that ends the layout leaves its last copy bare.
std::string repeated_layout(const std::string& megatron) {
  std::vector<std::string> stages;
  for (std::size_t start = 0;;) {
    const std::size_t bar = megatron.find('|', start);
    stages.push_back(megatron.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  std::string out;
  for (std::size_t i = 0; i < stages.size();) {
    std::size_t j = i;
    while (j < stages.size() && stages[j] == stages[i]) ++j;
    const bool last = j == stages.size();
    const std::size_t copies = j - i - (last ? 1 : 0);  // those followed by '|'
    if (copies > 1) {
      out += "(" + stages[i] + "|)*" + std::to_string(copies);
    } else if (copies == 1) {
      out += stages[i] + "|";
    }
    if (last) out += stages[i];
    i = j;
  }
  return out;
}

LaunchPlan megatron_launch(const PlanRequest& request, const PlanRow& row) {
  LaunchPlan launch;
  launch.framework = Framework::Megatron;
  PlanRow as_run = row;
  if (find_generator(row.schedule) == nullptr) throw Error("unknown schedule '" + row.schedule + "'");
  if (row.pp > 1 && !megatron_runs(row.schedule)) {
    as_run.schedule = row.chunks > 1 ? "interleaved" : "1f1b";
    launch.gaps.push_back(
        "Megatron-LM runs 1F1B and interleaved 1F1B only (schedules.py, get_forward_backward_func), "
        "not " +
        row.schedule + ": it runs the row's configuration as " +
        (row.chunks > 1
             ? "interleaved 1F1B, " + std::to_string(row.chunks) + " virtual stages per rank on the looped placement"
             : std::string("1F1B")) +
        ", on the same layout");
  }
  PlanRequest run_request = request;
  if (request.training.loss == Loss::Torch) {
    run_request.training.loss = Loss::VocabParallel;
    launch.gaps.emplace_back(
        "Megatron-LM computes the loss vocabulary-parallel (tensor_parallel/cross_entropy.py), not with torch's "
        "cross_entropy: it runs the row with --loss vocab-parallel");
  } else if (request.training.loss == Loss::TransformerEngine) {
    run_request.training.loss = Loss::VocabParallelFused;
    launch.gaps.emplace_back(
        "Megatron-LM refuses Transformer Engine's fused cross entropy (arguments.py, 'disabled due to stability "
        "issues'; Megatron-Bridge runs it): it runs the row with --loss vocab-parallel-fused "
        "(--cross-entropy-loss-fusion, its native kernels)");
  }
  if (request.training.elementwise != Elementwise::Fused) {
    run_request.training.elementwise = Elementwise::Fused;
    launch.gaps.emplace_back(
        "Megatron-LM runs its norms, RoPE and SwiGLU as fused kernels (Transformer Engine's and its own fusions), "
        "not op by op: it runs the row with --elementwise fused");
  }
  if (row.tp > 1 && request.training.tp_comm_overlap &&
      request.training.tp_overlap_method != TpOverlapMethod::Userbuffers) {
    run_request.training.tp_overlap_method = TpOverlapMethod::Userbuffers;
    launch.gaps.emplace_back(
        "Megatron-LM's --tp-comm-overlap is Transformer Engine's userbuffers, not PyTorch's async tensor "
        "parallelism: it runs the row with --tp-overlap-method userbuffers");
  }
  if (request.training.moe_a2a_overlap && row.pp > 1 && row.chunks == 1) {
    // transformer_config.py at d98e8a64: "If enabling EP A2A overlap,
    // virtual_pipeline_model_parallel_size must be specified when pipeline_model_parallel_size > 1".
    launch.gaps.emplace_back(
        "Megatron-Core overlaps the expert all-to-alls under pipeline parallelism only with virtual stages "
        "(--num-virtual-stages-per-pipeline-rank): plan the row with --chunks 2 or more");
  }
  if (row.sharding == Sharding::Params && request.training.fsdp_impl != FsdpImpl::Megatron) {
    run_request.training.fsdp_impl = FsdpImpl::Megatron;
    launch.gaps.emplace_back(
        "Megatron-LM's FSDP is Megatron-FSDP (--use-megatron-fsdp), whose parameters and gradients are views of its "
        "buckets, not PyTorch's FSDP2 with its copies: it runs the row with --fsdp-impl megatron");
  }
  if (request.training.param_gather_at_step_start) {
    run_request.training.param_gather_at_step_start = false;
    launch.gaps.emplace_back(
        "Megatron-LM (Megatron-Core from r0.9) dispatches the first bucket's weight all-gather at each stage's first "
        "forward, not at the step's start: it runs the row without --param-gather-at-step-start");
  }
  if (row.recompute == Recompute::Ops) {
    as_run.recompute = Recompute::Full;
    launch.gaps.emplace_back(
        "Megatron-LM has no checkpointing by op (torchtitan's): the closest it runs is full recompute "
        "(--recompute-granularity full)");
  }
  MegatronInput in{request, as_run, parse_layout(as_run.layout, request.model.layers, "the row's layout")};
  in.even = is_even_split(in.layout, request.model.layers, false);
  in.padded = is_even_split(in.layout, request.model.layers, true);
  if (as_run.pp > 1 && as_run.chunks > 1 && as_run.schedule == "interleaved") {
    if (as_run.microbatches < as_run.pp) {
      // schedules.py, forward_backward_pipelining_with_interleaving: a group holds P to M.
      launch.gaps.push_back("Megatron-LM's interleaving needs at least as many micro-batches as pipeline ranks (" +
                            std::to_string(as_run.microbatches) + " < pp " + std::to_string(as_run.pp) +
                            "): raise --global-batch-size or lower --micro-batch-size");
    } else if (const int round = pytorch_round(as_run.microbatches, as_run.pp); round != as_run.pp) {
      in.group = round;
    }
  }
  for (const MegatronArg& arg : kMegatronArgs) {
    if (Value v = arg.value(in)) launch.settings.push_back({std::string(arg.flag), std::move(*v), arg.words});
  }
  one_f_one_b_comm("Megatron-LM's", as_run, run_request, launch);
  if (as_run.pp > 1 && as_run.chunks > 1 && run_request.comm != CommMode::Overlap) {
    // arguments.py: --no-overlap-p2p-communication turns overlap_p2p_comm off; on, the interleaved
    // schedule posts each transfer ahead and waits for it only before the op that needs it.
    run_request.comm = CommMode::Overlap;
    run_request.policy.reset();
    launch.gaps.emplace_back(
        "Megatron-LM's interleaving overlaps its sends and receives with compute (overlap_p2p_comm, on unless "
        "--no-overlap-p2p-communication): it runs the row with --comm overlap");
  }
  if (as_run.schedule != row.schedule || as_run.recompute != row.recompute || run_differs(request, run_request))
    simulate_closest(run_request, as_run, launch);
  if (const int mtp = request.model.mtp_layers; mtp > 0) {
    // Megatron counts the layout's m's against --mtp-num-layers (validate_layer_layout), and
    // without a layout puts the multi-token prediction block on the last stage too.
    launch.notes.push_back(
        fmt::format("the model's {} multi-token prediction layer{} run{} on the last stage with the "
                    "loss, as planned: pass --mtp-num-layers {} with the model's flags",
                    mtp, mtp == 1 ? "" : "s", mtp == 1 ? "s" : "", mtp));
  }
  if (request.model.qk_norm && request.model.qk_norm_across_heads) {
    launch.notes.push_back(
        "Megatron-LM's --qk-layernorm normalises each head apart; MiniMax-M2's norms over every head's queries "
        "and keys are Megatron-Bridge's layer spec (its MiniMax-M2 bridge's FullDimQNorm and FullDimKNorm)");
  }
  if (in.fsdp() && row.sharding == Sharding::Params) {
    launch.notes.push_back(
        "pipeplan prices sharded weights as torchtitan's FSDP2 runs them (docs/costs.md, \"FSDP\"); Megatron-FSDP's "
        "optim_grads_params shards the same state, its collectives are not modelled apart");
  }
  return launch;
}

}  // namespace pipeplan
