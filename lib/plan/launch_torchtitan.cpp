// A row as a torchtitan job config (docs/launch.md, "torchtitan"). Every key was read in
// pytorch/torchtitan at kTorchtitanCommit (v0.2.2, the last release that reads TOML job configs:
// #2386 replaced them with Python config functions), torchtitan/config/job_config.py
// (tests/data/launch/torchtitan-keys.txt); the schedule names are get_schedule_class's in
// pytorch/pytorch at kPytorchCommit, torch/distributed/pipelining/schedules.py
// (tests/data/launch/pytorch-schedules.txt). tests/launch_test.cpp holds every emitted name to them.
#include <array>
#include <optional>
#include <string>

#include "model/error.hpp"
#include "model/placement.hpp"
#include "plan/launch.hpp"
#include "plan/planner.hpp"
#include "schedules/generator.hpp"

namespace pipeplan {

namespace {

// The pipeplan generators whose order a PyTorch class reproduces (docs/schedules.md cites
// each), by the class torchtitan's pipeline_parallel_schedule names. Any other runs from the CSV
// --emit-schedule writes (pipeline_parallel_schedule_csv, run by _PipelineScheduleRuntime), the
// class then naming only the placement torchtitan splits the stages on
// (torchtitan/distributed/pipeline_parallel.py, pipeline_module_split: the V for ZBVZeroBubble
// and DualPipeV, the loop otherwise), which is the generator's own: a new generator needs no
// row here.
struct TorchtitanSchedule {
  std::string_view schedule;
  std::string_view pytorch;
};

constexpr std::array kTorchtitanSchedules = {
    TorchtitanSchedule{"gpipe", "GPipe"},
    TorchtitanSchedule{"1f1b", "1F1B"},
    TorchtitanSchedule{"interleaved", "Interleaved1F1B"},
    TorchtitanSchedule{"interleaved-zb", "InterleavedZeroBubble"},
    TorchtitanSchedule{"looped-bfs", "LoopedBFS"},
    // Its FB ops run through the overlap callback torchtitan registers for this class alone.
    TorchtitanSchedule{"dualpipev", "DualPipeV"},
};

std::string_view pytorch_class(std::string_view schedule) {
  for (const TorchtitanSchedule& s : kTorchtitanSchedules) {
    if (s.schedule == schedule) return s.pytorch;
  }
  return "";
}

// The class torchtitan is told for pipeplan's own order: the one whose placement and stage
// count (one stage per rank for a single-stage class) the CSV's schedule needs.
std::string csv_class(bool vee, int chunks) {
  if (vee) return "ZBVZeroBubble";
  return chunks > 1 ? "PipelineScheduleMulti" : "PipelineScheduleSingle";
}

bool single_stage(std::string_view cls) {
  return cls == "GPipe" || cls == "1F1B" || cls == "PipelineScheduleSingle";
}

// torchtitan's own split when module_fqns_per_model_part is not given (pipeline_parallel.py,
// generate_llm_fqn_per_model_part with its defaults pipeline_parallel_first_stage_less_layers =
// pipeline_parallel_last_stage_less_layers = 1): layers + 2 "effective" layers over the stages,
// the first `extra` stages one more, the embedding and the head each taking one of theirs.
Layout torchtitan_default_split(int stages, int layers) {
  Layout out(static_cast<std::size_t>(stages));
  if (stages == 1) return {{true, layers, true}};
  const int effective = layers + 2;
  const int per = effective / stages;
  const int extra = effective % stages;
  int left = layers;
  for (int s = 0; s < stages; ++s) {
    int n = per + (s < extra ? 1 : 0) - (s == 0 ? 1 : 0) - (s == stages - 1 ? 1 : 0);
    n = std::max(0, std::min(n, left));
    left -= n;
    out[std::size_t(s)] = {s == 0, n, s == stages - 1};
  }
  return out;
}

bool same_layout(const Layout& a, const Layout& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t s = 0; s < a.size(); ++s) {
    if (a[s].embedding != b[s].embedding || a[s].layers != b[s].layers || a[s].head != b[s].head) return false;
  }
  return true;
}

// The stages as torchtitan's module names (its Llama-style models: tok_embeddings, layers.N,
// norm and output), one stage a line.
std::string module_names(const Layout& layout) {
  std::string out = "[\n";
  int layer = 0;
  for (const StagePieces& stage : layout) {
    std::string line;
    const auto add = [&line](const std::string& name) { line += (line.empty() ? "" : ", ") + ("\"" + name + "\""); };
    if (stage.embedding) add("tok_embeddings");
    for (int i = 0; i < stage.layers; ++i) add("layers." + std::to_string(layer++));
    if (stage.head) {
      add("norm");
      add("output");
    }
    out += "  [" + line + "],\n";
  }
  return out + "]";
}

std::string quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

// --tp-comm-overlap's counterpart: torchtitan's async tensor parallelism, for a row with tensor
// parallelism.
bool async_tensor_parallel(const PlanRequest& request, const PlanRow& row) {
  return row.tp > 1 && request.training.tp_comm_overlap;
}

struct TorchtitanInput {
  const PlanRequest& request;
  const PlanRow& row;  ///< as torchtitan runs it
  std::string cls;     ///< pipeline_parallel_schedule
  Layout layout;
  std::string csv;  ///< pipeline_parallel_schedule_csv, for pipeplan's own orders
  [[nodiscard]] bool pipelined() const { return row.pp > 1; }
  [[nodiscard]] bool fsdp() const { return row.sharding == Sharding::Params; }
  [[nodiscard]] bool async_tp() const { return async_tensor_parallel(request, row); }
  /// torchtitan's default split and stage count (two stages per rank for a multi-stage class)
  /// are the row's: module_fqns_per_model_part can be left out.
  [[nodiscard]] bool default_split() const {
    const int per_rank = single_stage(cls) ? 1 : 2;
    return row.chunks == per_rank &&
           same_layout(layout, torchtitan_default_split(int(layout.size()), request.model.layers));
  }
};

using Value = std::optional<std::string>;

Value when(bool emit, const std::string& value) {
  return emit ? Value(value) : std::nullopt;
}

// The keys, in the order they are written (grouped by table); each says when the row calls for
// it and its TOML value.
struct TorchtitanKey {
  std::string_view key;
  Value (*value)(const TorchtitanInput&);
};

constexpr std::array kTorchtitanKeys = {
    // The dp ranks replicate (DDP) without sharding and shard (FSDP2) under it; the default -1
    // would take every rank left, so the shard degree is always written.
    TorchtitanKey{
        "parallelism.data_parallel_replicate_degree",
        [](const TorchtitanInput& in) { return when(!in.fsdp() && in.row.dp > 1, std::to_string(in.row.dp)); }},
    TorchtitanKey{"parallelism.data_parallel_shard_degree",
                  [](const TorchtitanInput& in) { return Value(std::to_string(in.fsdp() ? in.row.dp : 1)); }},
    TorchtitanKey{"parallelism.tensor_parallel_degree",
                  [](const TorchtitanInput& in) { return Value(std::to_string(in.row.tp)); }},
    // Its micro-pipelined tensor parallelism (SymmetricMemory), which runs only compiled
    // (parallelize.py refuses it without compile.enable, written below).
    TorchtitanKey{"parallelism.enable_async_tensor_parallel",
                  [](const TorchtitanInput& in) { return when(in.async_tp(), "true"); }},
    TorchtitanKey{"parallelism.context_parallel_degree",
                  [](const TorchtitanInput& in) { return when(in.row.cp > 1, std::to_string(in.row.cp)); }},
    TorchtitanKey{"parallelism.expert_parallel_degree",
                  [](const TorchtitanInput& in) { return when(in.row.ep > 1, std::to_string(in.row.ep)); }},
    // DeepEP's kernels for the flex dispatcher (its default, "standard", is torch's all-to-all).
    TorchtitanKey{"parallelism.expert_parallel_comm_backend",
                  [](const TorchtitanInput& in) {
                    return when(in.row.ep > 1 && in.request.training.moe_dispatcher == MoeDispatcher::Flex,
                                quoted("deepep"));
                  }},
    // Its default is 1, not tp.
    TorchtitanKey{"parallelism.expert_tensor_parallel_degree",
                  [](const TorchtitanInput& in) { return when(in.row.ep > 1, std::to_string(in.row.etp)); }},
    TorchtitanKey{"parallelism.pipeline_parallel_degree",
                  [](const TorchtitanInput& in) { return Value(std::to_string(in.row.pp)); }},
    TorchtitanKey{"parallelism.pipeline_parallel_schedule",
                  [](const TorchtitanInput& in) { return when(in.pipelined(), quoted(in.cls)); }},
    TorchtitanKey{"parallelism.pipeline_parallel_schedule_csv",
                  [](const TorchtitanInput& in) { return when(in.pipelined() && !in.csv.empty(), quoted(in.csv)); }},
    // local_batch_size / microbatch_size micro-batches per step (build_pipeline_schedule).
    TorchtitanKey{"parallelism.pipeline_parallel_microbatch_size",
                  [](const TorchtitanInput& in) { return when(in.pipelined(), std::to_string(in.row.micro_batch)); }},
    TorchtitanKey{
        "parallelism.module_fqns_per_model_part",
        [](const TorchtitanInput& in) { return when(in.pipelined() && !in.default_split(), module_names(in.layout)); }},
    // With pipelining a step is one local batch of the dp rank's sequences, cut into
    // micro-batches; without, each micro-batch is a local batch and torchtitan accumulates
    // global / (local x dp) of them.
    TorchtitanKey{"training.local_batch_size",
                  [](const TorchtitanInput& in) {
                    return Value(std::to_string(in.pipelined() ? in.request.training.global_batch / in.row.dp
                                                               : in.row.micro_batch));
                  }},
    TorchtitanKey{"training.global_batch_size",
                  [](const TorchtitanInput& in) { return Value(std::to_string(in.request.training.global_batch)); }},
    TorchtitanKey{"training.seq_len",
                  [](const TorchtitanInput& in) { return Value(std::to_string(in.request.training.seq)); }},
    TorchtitanKey{
        "training.mixed_precision_param",
        [](const TorchtitanInput& in) { return when(in.row.precision.dtype == DType::FP32, quoted("float32")); }},
    // Its default is "selective", so the mode is always written.
    TorchtitanKey{"activation_checkpoint.mode",
                  [](const TorchtitanInput& in) {
                    switch (in.row.recompute) {
                      case Recompute::Full:
                        return Value(quoted("full"));
                      case Recompute::Ops:
                        return Value(quoted("selective"));
                      case Recompute::None:
                      case Recompute::Selective:
                        break;
                    }
                    return Value(quoted("none"));
                  }},
    TorchtitanKey{"activation_checkpoint.selective_ac_option",
                  [](const TorchtitanInput& in) { return when(in.row.recompute == Recompute::Ops, quoted("op")); }},
    // torchao's float8 linears (tensorwise) or MX linears (mxfp8), by model converter.
    TorchtitanKey{"model.converters",
                  [](const TorchtitanInput& in) {
                    if (!in.row.precision.fp8) return Value();
                    return Value(*in.row.precision.fp8 == Fp8Recipe::Mxfp8 ? "[\"quantize.linear.mx\"]"
                                                                           : "[\"quantize.linear.float8\"]");
                  }},
    TorchtitanKey{"quantize.linear.float8.recipe_name",
                  [](const TorchtitanInput& in) {
                    return when(in.row.precision.fp8 == Fp8Recipe::Tensorwise, quoted("tensorwise"));
                  }},
    // torch.compile fuses the norms, RoPE and activations, as pipeplan prices them under
    // --elementwise fused; off, torchtitan runs its modules op by op (--elementwise eager).
    TorchtitanKey{
        "compile.enable",
        [](const TorchtitanInput& in) { return when(in.request.training.elementwise == Elementwise::Fused, "true"); }},
};

}  // namespace

LaunchPlan torchtitan_launch(const PlanRequest& request, const PlanRow& row, const LaunchFiles& files) {
  LaunchPlan launch;
  launch.framework = Framework::Torchtitan;
  if (find_generator(row.schedule) == nullptr) throw Error("unknown schedule '" + row.schedule + "'");
  PlanRow as_run = row;
  if (row.rank_order == RankOrder::TpPpDp) {
    // parallel_dims.py unflattens the world as ["pp", "batch", "cp", "tp"]: tp-cp-dp-pp.
    as_run.rank_order = RankOrder::TpDpPp;
    launch.gaps.emplace_back(
        "torchtitan numbers its ranks tp, cp, dp, then pp (parallel_dims.py), with no tp-pp-dp order: it runs the "
        "row with ranks tp-dp-pp");
  }
  if (row.dp * row.cp > 1 && row.sharding != Sharding::Params) {
    std::string why;
    if (row.sharding == Sharding::Optimizer || row.sharding == Sharding::Gradients) {
      why = "torchtitan has no " + std::string(row.sharding == Sharding::Optimizer ? "ZeRO-1" : "ZeRO-2") +
            " (its data parallelism is DDP or FSDP2)";
    } else if (row.cp > 1) {
      why = "torchtitan shards with FSDP2 over the context-parallel ranks whenever cp > 1 (ParallelDims.fsdp_enabled)";
    } else if (row.ep > 1) {
      why = "torchtitan shards the experts with FSDP2 whenever ep > 1 (parallel_dims.py, efsdp)";
    }
    if (!why.empty()) {
      as_run.sharding = Sharding::Params;
      launch.gaps.push_back(why + ": it runs the row with FSDP2 over the dp ranks (sharding params)");
    }
  }
  if (row.recompute == Recompute::Selective) {
    as_run.recompute = Recompute::Full;
    launch.gaps.push_back(
        "torchtitan's selective checkpointing (per layer or per op) is not Megatron-Core's "
        "recompute of modules (" +
        recompute_modules_names(row.recompute_modules, ", ") +
        ") pipeplan plans: the closest it runs is mode \"full\"");
  }
  // Its full mode checkpoints every layer, and selective_ac_option N every N-th: no first-N block.
  if (row.recompute_layers > 0) {
    as_run.recompute_layers = 0;
    launch.gaps.push_back(
        "torchtitan's activation checkpointing has no block of each stage's first " +
        std::to_string(row.recompute_layers) +
        " layers (mode \"full\" recomputes every layer): it runs the row with every layer recomputed");
  }
  if (row.precision.fp8 == Fp8Recipe::Delayed || row.precision.fp8 == Fp8Recipe::Blockwise) {
    launch.gaps.push_back("torchtitan's float8 linears scale tensorwise or rowwise, not " +
                          std::string(fp8_recipe_name(*row.precision.fp8)) + ": the closest is tensorwise");
    as_run.precision.fp8 = Fp8Recipe::Tensorwise;
  }
  if (row.precision.dtype == DType::FP16) {
    as_run.precision.dtype = DType::BF16;
    launch.gaps.emplace_back("torchtitan's mixed precision is bfloat16 or float32, not fp16: it runs bf16");
  }
  if (row.ep > 1 && row.etp != 1 && row.etp != row.tp) {
    launch.gaps.push_back("torchtitan takes an expert tensor-parallel degree of 1 or tp only (parallel_dims.py), not " +
                          std::to_string(row.etp) + ": give --etp 1 or --etp " + std::to_string(row.tp) + " to plan");
  }
  // What the framework runs its own way, whatever the plan said: the closest is simulated so.
  PlanRequest run_request = request;
  if (const int mtp = request.model.mtp_layers; mtp > 0) {
    // No model of torchtitan's builds multi-token prediction modules (torchtitan/models at v0.2.2).
    run_request.model.mtp_layers = 0;
    launch.gaps.push_back("torchtitan's models have no multi-token prediction: it runs the row without the model's " +
                          std::to_string(mtp) + " MTP layer" + (mtp == 1 ? "" : "s"));
  }
  if (request.training.loss != Loss::Torch) {
    run_request.training.loss = Loss::Torch;
    launch.gaps.emplace_back(
        "torchtitan computes the loss with torch's cross_entropy on an fp32 copy of the logits (components/loss.py), "
        "not vocabulary-parallel: it runs the row with --loss torch");
  }
  // Its overlap of tensor parallelism is PyTorch's micro-pipelined one (parallelize.py), not userbuffers.
  if (async_tensor_parallel(request, row) && request.training.tp_overlap_method != TpOverlapMethod::AsyncTp) {
    run_request.training.tp_overlap_method = TpOverlapMethod::AsyncTp;
    launch.gaps.emplace_back(
        "torchtitan overlaps tensor parallelism's collectives with PyTorch's async tensor parallelism "
        "(parallelize.py), not Transformer Engine's userbuffers: it runs the row with --tp-overlap-method async-tp");
  }
  // Its async tensor parallelism runs only compiled (parallelize.py), and compiled the element-wise
  // kernels are fused.
  if (async_tensor_parallel(request, row) && request.training.elementwise != Elementwise::Fused) {
    run_request.training.elementwise = Elementwise::Fused;
    launch.gaps.emplace_back(
        "torchtitan's async tensor parallelism runs only under torch.compile (parallelize.py), which fuses the "
        "norms, RoPE and activations: it runs the row with --elementwise fused");
  }
  // Its trainer has no activation offloading: training.enable_cpu_offload is FSDP's CPUOffloadPolicy
  // for the parameters, gradients and optimizer states (config/configs.py, distributed/fsdp.py).
  if (request.training.offload_layers > 0) {
    run_request.training.offload_layers = 0;
    launch.gaps.emplace_back(
        "torchtitan offloads no activations to the host (its training.enable_cpu_offload moves FSDP's parameters, "
        "gradients and optimizer states): it runs the row with --offload-layers 0");
  }
  // Its trainer captures no CUDA graphs of the training step (torch.compile's default mode
  // launches each kernel from the host).
  if (request.training.cuda_graphs != CudaGraphs::None) {
    run_request.training.cuda_graphs = CudaGraphs::None;
    launch.gaps.emplace_back(
        "torchtitan's trainer replays no CUDA graphs of the training step: it runs the row with --cuda-graphs none");
  }
  // Its pipeline schedules run each op alone: no forward beside another micro-batch's backward.
  if (request.training.moe_a2a_overlap) {
    run_request.training.moe_a2a_overlap = false;
    launch.gaps.emplace_back(
        "torchtitan does not overlap one micro-batch's expert all-to-alls with another's compute (Megatron-Core's "
        "--overlap-moe-expert-parallel-comm): it runs the row without --moe-a2a-overlap");
  }
  // FSDP2's sharded gradients are fp32 (its MixedPrecisionPolicy keeps the parameters' dtype for
  // them), whatever training.mixed_precision_reduce casts the reduce-scatter to.
  if (request.training.grad_reduce_bf16) {
    run_request.training.grad_reduce_bf16 = false;
    launch.gaps.emplace_back(
        "torchtitan keeps FSDP2's fp32 gradients, not Megatron-LM's bf16 gradient buffers: it runs the row "
        "without --grad-reduce-in-bf16");
  }
  if (request.training.fsdp_impl != FsdpImpl::Fsdp2) {
    run_request.training.fsdp_impl = FsdpImpl::Fsdp2;
    launch.gaps.emplace_back(
        "torchtitan's FSDP is PyTorch's FSDP2, which copies each gather out and each reduce-scatter's gradients in, "
        "not Megatron-FSDP: it runs the row with --fsdp-impl fsdp2");
  }
  // FSDP2 gathers and reduce-scatters module by module, DDP by its own buckets: neither is
  // Megatron-Core's buffer.
  if (request.training.bucket_params > 0 || request.training.param_gather_at_step_start) {
    run_request.training.bucket_params = 0;
    run_request.training.param_gather_at_step_start = false;
    launch.gaps.emplace_back(
        "torchtitan's data parallelism (FSDP2 or DDP) has no Megatron-Core gradient buckets: it runs the row "
        "without --ddp-bucket-size and --param-gather-at-step-start");
  }
  // Its float8 converts each linear's bf16 weight as the GEMM runs (quantize.linear.float8): no
  // weights kept in FP8 alone.
  if (request.training.fp8_params && row.precision.fp8) {
    run_request.training.fp8_params = false;
    launch.gaps.emplace_back(
        "torchtitan's float8 keeps the bf16 weights and casts them for each GEMM (quantize.linear.float8), not "
        "FP8 weights alone: it runs the row without --fp8-params");
  }
  // Its tensor parallelism shards the norms over the sequence always (parallelize.py's
  // SequenceParallel on every norm).
  if (row.tp > 1 && !request.training.sequence_parallel) {
    run_request.training.sequence_parallel = true;
    launch.gaps.emplace_back(
        "torchtitan's tensor parallelism always runs the norms sequence-parallel (parallelize.py): it runs the "
        "row with sequence parallelism");
  }
  const std::string_view pytorch = pytorch_class(row.schedule);
  const bool csv = row.pp > 1 && pytorch.empty();
  // pipeplan's own order sits where its generator put its stages: the V or the loop.
  const bool vee = csv && row.chunks == 2 && rebuild_row(request, row).schedule.placement == vee_placement(row.pp);
  TorchtitanInput in{run_request, as_run, csv ? csv_class(vee, row.chunks) : std::string(pytorch),
                     parse_layout(as_run.layout, request.model.layers, "the row's layout"), ""};
  if (csv) {
    in.csv = files.schedule_csv.empty() ? "schedule.csv" : files.schedule_csv;
    launch.notes.push_back(
        files.schedule_csv.empty()
            ? "pipeline_parallel_schedule_csv is pipeplan's own " + row.schedule +
                  " order: write it with this plan's --emit-schedule DIR (DIR/schedule.csv) and give its path"
            : "pipeline_parallel_schedule_csv is pipeplan's own " + row.schedule +
                  " order, written by --emit-schedule");
  }
  if (run_request.training.elementwise != Elementwise::Fused) {
    launch.notes.push_back(
        "without compile.enable torchtitan's norms are torch's nn.RMSNorm (models/llama3/model/model.py), one kernel "
        "or op by op as the installed PyTorch runs it eagerly: pipeplan priced them " +
        std::string(run_request.training.elementwise == Elementwise::Eager ? "op by op" : "as one kernel each"));
  }
  if (row.cp > 1) {
    launch.notes.emplace_back(
        "pipeplan prices context parallelism as Megatron-LM's ring of point-to-point transfers; torchtitan's "
        "default context_parallel_rotate_method, \"allgather\" (job_config.py), gathers every key-value shard "
        "after the first sub-attention instead, which pipeplan does not price");
  }
  if (row.precision.fp8 && request.model.is_moe()) {
    launch.notes.emplace_back(
        "the experts' grouped GEMMs stay bf16 under quantize.linear converters (torchtitan's quantize.grouped_mm "
        "converters are a prototype): pipeplan priced them in FP8");
  }
  one_f_one_b_comm("torchtitan's (PyTorch's Schedule1F1B)", as_run, run_request, launch);
  for (const TorchtitanKey& key : kTorchtitanKeys) {
    if (Value v = key.value(in)) launch.settings.push_back({std::string(key.key), std::move(*v)});
  }
  const bool changed = as_run.rank_order != row.rank_order || as_run.sharding != row.sharding ||
                       as_run.recompute != row.recompute || !(as_run.precision == row.precision) ||
                       run_differs(request, run_request);
  if (changed) simulate_closest(run_request, as_run, launch);
  return launch;
}

}  // namespace pipeplan
