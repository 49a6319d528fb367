#include "estimate/piece_gemms.hpp"

#include <algorithm>

#include "estimate/attention_shape.hpp"
#include "estimate/context_parallel.hpp"
#include "estimate/op_checkpoint.hpp"

namespace pipeplan {

namespace {

// `batch` products alike (a grouped GEMM's experts), each over `tokens` rows.
void linear(PhaseGemms& out, std::int64_t tokens, std::int64_t in, std::int64_t features, std::int64_t batch = 1) {
  out.f.push_back({tokens, features, in, batch, false});  // Y = X W^T
  out.b.push_back({tokens, in, features, batch, false});  // dX = dY W
  out.w.push_back({features, in, tokens, batch, true});   // dW += dY^T X, into the fp32 gradient
}

// The layer's tensors on a rank (LinearTensors): the whole layer's, `in` x `out` over T tokens, over t.
void tensors(PhaseGemms& out, double tokens, double in, double features, double t, bool input_kept = false) {
  out.linears.push_back({tokens * in / t, tokens * features / t, in * features / t, input_kept});
}

// torchtitan's checkpointing by op runs its recomputed products again in B (op_checkpoint.hpp),
// each split as Megatron-LM splits it, and W inside B.
void fold_for_op_recompute(PhaseGemms& g, const ModelConfig& m, const TrainingSettings& tr, std::int64_t mlp_width) {
  const std::int64_t tokens = context_tokens(tr), t = tr.tp;
  for (const Linear& l : op_checkpoint(m, tr, mlp_width).recomputed) {
    if (l.split == Linear::Split::Rows) {
      g.b.push_back({tokens, l.out, l.in / t, 1, false});
    } else {
      g.b.push_back({tokens, l.out / t, l.in, 1, false});
    }
  }
  g.b.insert(g.b.end(), g.w.begin(), g.w.end());
  g.w.clear();
}

// Full recompute runs the forward again in B, and W inside B; the forward's collectives come
// again with it, beside the same products.
void fold_for_full_recompute(PhaseGemms& g, const TrainingSettings& tr, bool repeats_forward) {
  if (tr.recompute != Recompute::Full) return;
  if (repeats_forward) {
    for (OverlapSpan s : g.f_overlap) g.b_overlap.push_back({s.first + g.b.size(), s.count, s.chunked, s.scatter});
    g.b.insert(g.b.end(), g.f.begin(), g.f.end());
  }
  g.b.insert(g.b.end(), g.w.begin(), g.w.end());
  g.w.clear();
}

// One of attention_shape's linears on one rank: split by columns or rows as Megatron-LM runs
// them (the sequence gathered whole), or whole on the rank's share of the tokens.
// Its tensors as the rank holds them (tensors() above); the attention's output projection reads
// what flash attention's backward keeps anyway (`input_kept`).
void add(PhaseGemms& out, const Linear& l, std::int64_t tokens, std::int64_t t, bool attention_output_kept) {
  const double T = double(tokens), in = double(l.in), features = double(l.out), tt = double(t);
  switch (l.split) {
    case Linear::Split::Columns:
      linear(out, tokens, l.in, l.out / t);
      return tensors(out, T, in, features, tt);
    case Linear::Split::Rows:
      linear(out, tokens, l.in / t, l.out);
      return tensors(out, T, in, features, tt, attention_output_kept);
    case Linear::Split::None:
      linear(out, tokens / t, l.in, l.out);
      out.linears.push_back({T * in / tt, T * features / tt, in * features, false});
      return;
  }
}

// The routed experts' grouped products on one rank (moe_work's FLOPs, as shapes): its E/ep
// experts, their widths split etp ways, each over its balanced share of the rows the rank's
// experts see (etp ranks' tl·k copies, times the capacity factor): gate and up as one product,
// then down. Megatron-LM runs them as one grouped GEMM each (`--moe-grouped-gemm`), in FP8 under
// an FP8 recipe as its other linears.
void add_routed_experts(PhaseGemms& out, const ModelConfig& m, const TrainingSettings& tr) {
  const std::int64_t local = std::max<std::int64_t>(1, m.moe.experts / tr.ep);
  const double etp = tr.expert_tp();
  const double capacity = tr.moe_capacity_factor > 0 ? tr.moe_capacity_factor : 1.0;
  const double rows = etp * double(context_tokens(tr)) / tr.tp * m.moe.per_token * capacity;  // the rank's
  const double width = double(m.moe.ffn) / etp;
  const auto per_expert = std::int64_t(rows / double(local) + 0.5);
  linear(out, per_expert, m.hidden, std::int64_t(2 * width), local);
  linear(out, per_expert, std::int64_t(width), m.hidden, local);
  const double weights = double(local) * m.hidden * width;
  out.linears.push_back({rows * m.hidden, rows * 2 * width, 2 * weights, false});
  out.linears.push_back({rows * width, rows * m.hidden, weights, false});
}

// Adds `linears` (attention_shape's, or an MLP's) and, when `overlapped`, a span for the gather
// before its column-parallel products and one for the scatter after its row-parallel ones
// (Megatron-LM's layers under sequence parallelism: one of each a block), in F and in B alike
// (B's input gradients of the same linears sit at the same places: the row-parallel ones after
// a gather of the output gradient, the column-parallel ones before a scatter of the input's).
// As Megatron-Bridge's userbuffers configurations run them (comm_overlap.py at 067f987df): F's
// four and B's gathers by ring exchange, B's scatters in bulk. Without `b_scatter_overlapped`
// B's scatter runs alone (async_tp_scatters_alone below).
void add_block(PhaseGemms& out, const std::vector<Linear>& linears, std::int64_t tokens, std::int64_t t,
               bool attention_output_kept, bool overlapped, bool b_scatter_overlapped = true) {
  OverlapSpan gather, scatter;
  for (const Linear& l : linears) {
    OverlapSpan* span = l.split == Linear::Split::Columns ? &gather
                        : l.split == Linear::Split::Rows  ? &scatter
                                                          : nullptr;
    if (span != nullptr) {
      if (span->count == 0) span->first = out.f.size();
      ++span->count;
    }
    add(out, l, tokens, t, attention_output_kept);
  }
  if (!overlapped || t <= 1) return;
  // In B the collectives change places: the column-parallel input gradients are scattered, the
  // row-parallel ones' output gradient gathered.
  if (gather.count > 0) {
    out.f_overlap.push_back(gather);
    if (b_scatter_overlapped) out.b_overlap.push_back({gather.first, gather.count, false, true});
  }
  if (scatter.count > 0) {
    out.f_overlap.push_back({scatter.first, scatter.count, true, true});
    out.b_overlap.push_back(scatter);
  }
}

// Megatron-Core's modules of selective recompute (recompute_modules.hpp) run these forward
// products again in B, before its own: latent attention's up projections (its column-parallel
// linears), a dense layer's MLP, the shared expert, or a mixture of experts' whole block. W
// stays apart. Their FLOPs are piece_work's and moe_work's recompute_flops.
void add_module_recompute(PhaseGemms& g, const ModelConfig& m, const TrainingSettings& tr, const LayerKind& kind) {
  if (tr.recompute != Recompute::Selective) return;
  const std::int64_t tokens = context_tokens(tr), t = tr.tp;
  PhaseGemms again;
  if (recomputes(tr, RecomputeModule::MlaUpProj) && m.latent.enabled()) {
    for (const Linear& l : attention_shape(m).linears) {
      if (l.split == Linear::Split::Columns) add(again, l, tokens, t, false);
    }
  }
  const bool experts_again = kind.experts && recomputes(tr, RecomputeModule::Moe);
  const bool dense_again = !kind.experts && recomputes(tr, RecomputeModule::Mlp);
  if (dense_again || experts_again || (kind.experts && recomputes(tr, RecomputeModule::SharedExperts))) {
    for (const Linear& l : mlp_linears(m, kind.experts ? m.moe.shared_ffn : m.ffn)) add(again, l, tokens, t, false);
  }
  if (experts_again) add_routed_experts(again, m, tr);
  g.b.insert(g.b.end(), again.f.begin(), again.f.end());
}

// PyTorch's micro-pipelined tensor parallelism (--tp-overlap-method async-tp) fuses a scatter
// with the product before it only when that product alone makes the scattered tensor
// (`fuse_matmul_reduce_scatter` and `_find_producer_matmul`, torch/_inductor/fx_passes/
// micro_pipeline_tp.py). B's scatter of a block's input gradient sums the gradients of every
// column-parallel module that read the gathered input, so it fuses only where one module did:
// never in attention (torchtitan's wq, wk and wv are three, its parallelize_llama.py at 9dec370),
// in an MLP without a gate (w1 alone) but not in a gated one (w1 and w3). F's gathers and
// scatters and B's gathers are fused as userbuffers' ring exchanges are cut.
bool async_tp_scatters_alone(const TrainingSettings& tr, bool several_modules) {
  return tr.tp_overlap_method == TpOverlapMethod::AsyncTp && several_modules;
}

}  // namespace

PhaseGemms layer_linear_gemms(const ModelConfig& m, const TrainingSettings& tr, const LayerKind& kind) {
  const std::int64_t t = tr.tp;
  const std::int64_t tokens = context_tokens(tr);  // a context-parallel rank's
  PhaseGemms g;
  add_block(g, attention_shape(m).linears, tokens, t, tr.flash_attention, true,  // O reads it
            !async_tp_scatters_alone(tr, true));
  // A dense MLP, or a mixture of experts' shared expert and routed experts (its router's
  // logits stay priced from moe_work's FLOPs as a large product).
  add_block(g, mlp_linears(m, kind.experts ? m.moe.shared_ffn : m.ffn), tokens, t, false, !kind.experts,
            !async_tp_scatters_alone(tr, m.gated_mlp));
  if (kind.experts) add_routed_experts(g, m, tr);
  add_module_recompute(g, m, tr, kind);
  fold_for_full_recompute(g, tr, true);
  if (tr.recompute == Recompute::Ops) fold_for_op_recompute(g, m, tr, kind.experts ? m.moe.shared_ffn : m.ffn);
  return g;
}

PhaseGemms layer_linear_gemms(const ModelConfig& m, const TrainingSettings& tr) {
  return layer_linear_gemms(m, tr, layer_kind(m, 0));
}

PhaseGemms head_linear_gemms(const ModelConfig& m, const TrainingSettings& tr) {
  PhaseGemms g;
  linear(g, context_tokens(tr), m.hidden, m.vocab / tr.tp);
  fold_for_full_recompute(g, tr, false);  // the head keeps its inputs: no forward again (piece_work)
  return g;
}

}  // namespace pipeplan
