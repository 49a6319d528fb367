#include "estimate/piece_work.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "estimate/attention_kernel.hpp"
#include "estimate/attention_shape.hpp"
#include "estimate/elementwise_kernels.hpp"
#include "estimate/layer_kinds.hpp"
#include "estimate/moe_work.hpp"
#include "estimate/op_checkpoint.hpp"
#include "model/error.hpp"

namespace pipeplan {

namespace {

// The sizes every formula uses, as doubles (products of four of them overflow 32 bits). T is
// the tokens of one context-parallel rank, s·b / cp; `core` the share of the attention core it
// computes (context_parallel.hpp). `norm`, `rope` and `act` are what a norm, the rotary embedding
// and the MLP's activation move and keep per element, fused or op by op (elementwise_kernels.hpp).
struct Shape {
  double s, b, T, h, hk, f, a, V, e, t, core;
  KernelTraffic norm, rope, act;
};

Shape shape_of(const ModelConfig& m, const TrainingSettings& tr) {
  check_context_parallel(tr);
  const double s = tr.seq;
  const double b = tr.micro_batch;
  const double e = element_bytes(tr.dtype);
  return {s,
          b,
          double(context_tokens(tr)),
          double(m.hidden),
          double(m.kv_hidden()),
          double(m.ffn),
          double(m.heads),
          double(m.vocab),
          e,
          double(tr.tp),
          context_core_share(tr),
          norm_traffic(tr.elementwise, !m.layer_norm, e),
          rope_traffic(tr.elementwise, e),
          activation_traffic(tr.elementwise, m.gated_mlp, e)};
}

// A byte count. A piece above 256 TiB (millions of tokens times a huge vocabulary) is refused,
// so that a stage's sum over up to 10002 pieces still fits 64 bits.
Bytes bytes(double value) {
  if (!(value < 0x1p48)) {
    throw Error("one micro-batch's activations exceed 256 TiB on one piece: check --seq and --micro-batch");
  }
  return static_cast<Bytes>(value + 0.5);
}

void check_tensor_parallel(const ModelConfig& m, const TrainingSettings& tr, std::int64_t mlp_width) {
  const auto divides = [&](std::int64_t n, const char* what) {
    if (n % tr.tp != 0) {
      throw Error("--tp " + std::to_string(tr.tp) + ": tensor parallelism must divide " + what + " (" +
                  std::to_string(n) + ")");
    }
  };
  divides(m.heads, "the attention heads");
  if (!m.latent.enabled()) divides(m.kv_heads, "the key-value heads");
  if (mlp_width > 0) divides(mlp_width, "the FFN width");
  if (!m.qk_norm_fits_tensor_parallel(tr.tp)) {
    throw Error("--tp " + std::to_string(tr.tp) +
                ": the query and key norms run over every head at once (qk_norm_type per_layer); split over "
                "tensor-parallel ranks each needs its sum of squares all-reduced (Megatron-Bridge's MiniMax-M2 "
                "layer), which pipeplan does not time: tp 1");
  }
}

// Sequence parallelism (Megatron-LM, Korthikanti et al. 2022) splits what tensor parallelism
// leaves whole, so every per-rank figure below is the whole layer's divided by t.
void per_rank(PieceWork& w, double t) {
  w.f_flops /= t;
  w.b_flops /= t;
  w.w_flops /= t;
  w.recompute_flops /= t;
  w.f_core_flops /= t;
  w.b_core_flops /= t;
  w.b_core_forward_flops /= t;
  w.f_bytes /= t;
  w.b_bytes /= t;
  w.w_bytes /= t;
  w.activation_bytes = bytes(double(w.activation_bytes) / t);
  w.w_activation_bytes = bytes(double(w.w_activation_bytes) / t);
  w.f_workspace_bytes = bytes(double(w.f_workspace_bytes) / t);
  w.b_workspace_bytes = bytes(double(w.b_workspace_bytes) / t);
}

// A collective of one activation, (t-1)/t of it through each rank, as a ring moves it.
void add_collectives(PieceWork& w, const Shape& x, int forward, int backward) {
  if (x.t <= 1) return;
  w.tp_bytes = (x.t - 1) / x.t * x.T * x.h * x.e;
  w.f_collectives += forward;
  w.b_collectives += backward;
}

// The same under local attention (docs/costs.md, "Local attention"). A sliding window of w
// tokens: query block i computes the blocks from the window's first to the diagonal, at most
// ceil(w / 128) + 1 of them. Chunks of c tokens: each chunk is causal within itself.
double attention_block_share(const ModelConfig& m, const LayerKind& kind, int seq) {
  const int w = m.local.window;
  if (!kind.local || w <= 0 || w >= seq) return causal_block_share(seq);
  if (m.local.chunked) return causal_block_share(w) * double(w) / double(seq);
  // Blocks 1, 2, ..., reach for the first query blocks, then reach each: sum of min(i + 1, reach).
  const double n = std::ceil(seq / kFlashBlock), reach = std::min(n, std::ceil(w / kFlashBlock) + 1);
  const double computed = reach * (reach + 1) / 2 + (n - reach) * reach;
  return computed / (n * n);
}

// What one call of the core's kernel works on (attention_kernel.hpp): a head's query-key width,
// and the keys a query reaches: the sequence, a local window or chunk, and under context
// parallelism the rank's chunk of the sequence, which each of the ring's steps attends to.
AttentionCall attention_call(const ModelConfig& m, const LayerKind& kind, const TrainingSettings& tr,
                             const AttentionShape& a) {
  double span = double(tr.seq) / std::max(tr.cp, 1);
  if (kind.local && m.local.window > 0) span = std::min(span, double(m.local.window));
  const double heads = std::max(m.heads, 1);
  return {a.score_width / heads, span, a.value_width / heads, double(tr.seq), double(tr.micro_batch) * heads / tr.tp};
}

// The query and key heads' norms (Qwen3's), per token: the widths they normalise.
double qk_norm_width(const ModelConfig& m) {
  return m.qk_norm ? double(m.q_hidden() + m.kv_hidden()) : 0.0;
}

// The element-wise kernels' traffic in B, each kernel's own: the norms', RoPE's and the
// activation's as elementwise_kernels.hpp counts them; a residual add's gradient joins the
// skip's (3, as in F); the softmax reads its output and gradient and writes one (3 against 2);
// a dropout reads the gradient and its mask and writes one (as in F).
double backward_elementwise_bytes(const ModelConfig& m, const TrainingSettings& tr, const Shape& x,
                                  const AttentionShape& a, double f) {
  const double scores = x.a * x.b * x.s * x.s;
  double bytes = 2 * x.norm.backward * x.T * x.h + 2 * 3 * x.T * x.h * x.e + x.act.backward * x.T * f;
  bytes += x.rope.backward * x.T * a.rope_width + x.norm.backward * x.T * (a.latent_norm_width + qk_norm_width(m));
  if (!tr.flash_attention) bytes += 3 * scores * x.e;
  if (!tr.flash_attention && m.attention_dropout) bytes += (2 * x.e + 1) * scores;
  if (m.hidden_dropout) bytes += 2 * (2 * x.e + 1) * x.T * x.h;
  return bytes;
}

// Without sequence parallelism every tensor-parallel rank runs the layer's two norms, two
// residual adds and hidden dropouts on all T tokens, and keeps their tensors whole (Korthikanti
// et al. 2022, section 4.2.2 and Table 2: sbh(10 + 24/t + 5as/(ht)) against sbh(34/t + 5as/(ht))
// for GPT): the norms' inputs, the QKV and MLP linears' inputs (both norms' outputs) and the
// dropout masks; W's linear inputs and row-parallel outputs' gradients likewise. per_rank
// divided these by t; this adds the other (t - 1)/t back.
void add_replicated(PieceWork& w, const ModelConfig& m, const TrainingSettings& tr, const Shape& x, bool dense_mlp) {
  if (x.t <= 1) return;
  const double rest = 1 - 1 / x.t, Th = x.T * x.h;
  const double dropout = m.hidden_dropout ? 2 * (2 * x.e + 1) * Th : 0.0;
  const double f_bytes = 2 * x.norm.forward * Th + 2 * 3 * Th * x.e + dropout;
  const double b_bytes = 2 * x.norm.backward * Th + 2 * 3 * Th * x.e + dropout;
  w.f_bytes += f_bytes * rest;
  w.b_bytes += (b_bytes + (tr.recompute == Recompute::Full ? f_bytes : 0.0)) * rest;
  const double masks = m.hidden_dropout ? 2 * Th : 0.0;
  const double kept = tr.recompute == Recompute::Full ? Th * x.e : 2 * x.norm.kept * Th + 2 * Th * x.e + masks;
  w.activation_bytes += bytes(kept * rest);
  // W: QKV's input and the output projection's output gradient; a dense MLP's first matrices'
  // input and its last's output gradient too (a mixture of experts' are moe_work's).
  if (tr.recompute != Recompute::Full) w.w_activation_bytes += bytes((dense_mlp ? 4 : 2) * Th * x.e * rest);
}

// Megatron-Core's other modules of selective recompute in a layer's attention and dense MLP
// (recompute_modules.hpp; transformer_layer.py, multi_latent_attention.py and mlp.py at d98e8a64):
// the backward's work to make again what they dropped, added to `w`; returns the bytes a token's
// forward no longer keeps. Transformer Engine fuses a dense layer's two norms and grouped-query
// attention's into the linears after them, where the layernorm module finds none apart.
double recompute_modules_in_block(PieceWork& w, const ModelConfig& m, const TrainingSettings& tr, const LayerKind& kind,
                                  const Shape& x, const AttentionShape& a, const std::vector<Linear>& mlp) {
  double dropped = 0;
  if (recomputes(tr, RecomputeModule::Layernorm)) {
    // Latent attention's input norm feeds two down projections, a mixture of experts' pre-MLP
    // norm the router and the dispatch: each runs alone, its h-wide output dropped and remade.
    const double norms = (m.latent.enabled() ? 1 : 0) + (kind.experts ? 1 : 0);
    dropped += norms * x.T * x.h * x.e;
    w.b_bytes += norms * x.norm.forward * x.T * x.h;
  }
  if (recomputes(tr, RecomputeModule::MlaUpProj) && m.latent.enabled()) {
    // Q and K at full head width and V, the up projections' outputs after RoPE, dropped; B runs
    // the two up projections (the queries' from the hidden state without a query latent) and
    // RoPE again.
    const LatentAttention& l = m.latent;
    const double queries = double(m.heads) * (l.qk_nope + l.qk_rope), values = double(m.heads) * l.v_dim;
    dropped += (2 * queries + values) * x.T * x.e;
    const double query_in = l.q_rank > 0 ? l.q_rank : x.h;
    const double again = 2 * x.T * (query_in * queries + double(l.kv_rank) * m.heads * (l.qk_nope + l.v_dim));
    w.b_flops += again;
    w.recompute_flops += again;
    w.b_bytes += x.rope.forward * x.T * a.rope_width;
  }
  if (recomputes(tr, RecomputeModule::Mlp) && !mlp.empty()) {
    // The checkpointed MLP, its fused norm inside, keeps its input (the residual stream, h wide)
    // in place of its norm's, its first product's input and its activation's: B runs all of it again.
    const double f = double(mlp.back().in);
    dropped += x.norm.kept * x.T * x.h + (x.act.kept + x.e) * x.T * f;
    const double again = 2 * x.T * weight_elements(mlp);
    w.b_flops += again;
    w.recompute_flops += again;
    w.b_bytes += x.norm.forward * x.T * x.h + x.act.forward * x.T * f;
  }
  return dropped;
}

}  // namespace

PieceWork& PieceWork::operator+=(const PieceWork& o) {
  // The core's call is the one piece's that has a core (a layer's block; its experts add none).
  if (f_core_flops <= 0) core_call = o.core_call;
  f_flops += o.f_flops;
  b_flops += o.b_flops;
  w_flops += o.w_flops;
  f_bytes += o.f_bytes;
  b_bytes += o.b_bytes;
  w_bytes += o.w_bytes;
  recompute_flops += o.recompute_flops;
  f_core_flops += o.f_core_flops;
  b_core_flops += o.b_core_flops;
  b_core_forward_flops += o.b_core_forward_flops;
  tp_bytes = o.tp_bytes > tp_bytes ? o.tp_bytes : tp_bytes;
  f_collectives += o.f_collectives;
  b_collectives += o.b_collectives;
  params += o.params;
  expert_params += o.expert_params;
  all_to_all_bytes = o.all_to_all_bytes > all_to_all_bytes ? o.all_to_all_bytes : all_to_all_bytes;
  all_to_all_token_bytes = std::max(all_to_all_token_bytes, o.all_to_all_token_bytes);
  all_to_all_node_limit = std::max(all_to_all_node_limit, o.all_to_all_node_limit);
  dedup_experts = std::max(dedup_experts, o.dedup_experts);
  dedup_per_token = std::max(dedup_per_token, o.dedup_per_token);
  dedup_ranks = std::max(dedup_ranks, o.dedup_ranks);
  expert_gather_bytes = o.expert_gather_bytes > expert_gather_bytes ? o.expert_gather_bytes : expert_gather_bytes;
  f_all_to_alls += o.f_all_to_alls;
  b_all_to_alls += o.b_all_to_alls;
  activation_bytes += o.activation_bytes;
  w_activation_bytes += o.w_activation_bytes;
  f_workspace_bytes = std::max(f_workspace_bytes, o.f_workspace_bytes);
  b_workspace_bytes = std::max(b_workspace_bytes, o.b_workspace_bytes);
  // As tp_bytes: the pieces' one ring (a stage's times are the sums of its pieces' own).
  if (o.ring.steps > 0 && o.ring.kv_bytes >= ring.kv_bytes) ring = o.ring;
  host += o.host;
  return *this;
}

PieceWork block_work(const ModelConfig& m, const TrainingSettings& tr, const LayerKind& kind, std::int64_t mlp_width) {
  check_tensor_parallel(m, tr, mlp_width);
  const Shape x = shape_of(m, tr);
  const double f = double(mlp_width);
  const AttentionShape a = attention_shape(m);
  const std::vector<Linear> mlp = mlp_linears(m, mlp_width);
  PieceWork w;
  // GEMMs of the forward: the attention's linears and the MLP's (2 FLOPs per multiply-add).
  const double gemm = 2 * x.T * (weight_elements(a.linears) + weight_elements(mlp));
  // Attention core: Q K^T and the product with V over the s x s scores. Flash attention skips
  // the blocks above the causal diagonal (or outside the local window) and computes the
  // diagonal ones whole; unfused kernels compute every score and mask half. Under context
  // parallelism each rank computes its share of the whole core (x.core).
  const double share = (tr.flash_attention ? attention_block_share(m, kind, tr.seq) : 1.0) * x.core;
  const double qk = 2 * x.b * x.s * x.s * a.score_width * share, pv = 2 * x.b * x.s * x.s * a.value_width * share;
  const double core = qk + pv;
  w.f_flops = gemm + core;
  // The backward of the core: dQ and dK from the scores' gradient, dV and that gradient from the
  // values; flash attention recomputes Q K^T as well (for equal widths, 2.5 and 2 times the core).
  const double backward_core = tr.flash_attention ? 3 * qk + 2 * pv : 2 * qk + 2 * pv;
  w.b_flops = gemm + backward_core;
  w.f_core_flops = core;
  w.b_core_flops = backward_core;
  w.core_call = attention_call(m, kind, tr, a);
  w.ring = context_ring(tr, a.score_width, a.kv_width, core / x.t, backward_core / x.t);
  w.w_flops = gemm;

  // Element-wise traffic of the forward: two norms and two residual adds (read 2, write 1), the
  // activation function, RoPE on Q and K, MLA's latent norms or Qwen3's query and key norms, the
  // softmax and the dropouts when they run unfused.
  const double scores = x.a * x.b * x.s * x.s;
  double elementwise = 2 * x.norm.forward * x.T * x.h + 2 * 3 * x.T * x.h * x.e + x.act.forward * x.T * f;
  elementwise += x.rope.forward * x.T * a.rope_width + x.norm.forward * x.T * (a.latent_norm_width + qk_norm_width(m));
  if (!tr.flash_attention) elementwise += 2 * scores * x.e;
  if (!tr.flash_attention && m.attention_dropout) elementwise += (2 * x.e + 1) * scores;
  if (m.hidden_dropout) elementwise += 2 * (2 * x.e + 1) * x.T * x.h;
  w.f_bytes = elementwise;
  w.b_bytes = backward_elementwise_bytes(m, tr, x, a, f);

  // Activations F keeps, per Korthikanti et al. 2022, section 4.1: what both norms keep (their
  // inputs, fused), the attention's (its linears' inputs, Q, K and V, and what Qwen3's query and
  // key norms keep), the MLP's input, what its activation keeps and the activation's output (the
  // down projection's input), the dropout masks (1 byte an element) and, without flash attention,
  // the s x s softmax output (and dropout's).
  double kept = 2 * x.norm.kept * x.T * x.h + x.T * a.kept_width * x.e + x.norm.kept * x.T * qk_norm_width(m) +
                x.T * x.h * x.e + (x.act.kept + x.e) * x.T * f;
  if (m.hidden_dropout) kept += 2 * x.T * x.h;
  const bool core_again = recomputes(tr, RecomputeModule::CoreAttn);
  if (tr.flash_attention) {
    // The softmax's log-sum-exp, fp32, for the rank's tokens; a checkpointed core keeps its
    // inputs alone (Q, K and V, kept above for the QKV linear's W anyway).
    if (!core_again) kept += x.a * x.T * 4;
  } else if (!core_again) {
    kept += scores * x.e + (m.attention_dropout ? scores * (1 + x.e) : 0.0);
  }
  if (core_again) {
    w.b_flops += core;  // the attention core runs again in the backward
    w.recompute_flops += core;
    w.b_core_flops += core;
    w.b_core_forward_flops += core;
    if (!tr.flash_attention) w.b_bytes += (2 + (m.attention_dropout ? 2 + 1 / x.e : 0)) * scores * x.e;
  }
  kept -= recompute_modules_in_block(w, m, tr, kind, x, a, mlp);
  // W needs the inputs of the linear layers and the gradients B computed at their outputs (a
  // mixture of experts' block: its input and output gradient here, the rest in moe_work).
  double for_w =
      x.T * x.e *
      (input_and_output_elements(a.linears) + input_and_output_elements(mlp) + (mlp.empty() ? 2 * x.h : 0.0));
  if (tr.recompute == Recompute::Full) {
    // Only the layer's input stays; B runs the forward again. A W held back would need what the
    // recompute made and B's output gradients, so W runs inside B (docs/costs.md).
    kept = x.T * x.h * x.e;
    for_w = 0;
    w.recompute_flops += w.f_flops;
    w.b_core_flops += w.f_core_flops;  // the recomputed forward's core
    w.b_core_forward_flops += w.f_core_flops;
    w.b_flops += w.f_flops + w.w_flops;
    w.b_bytes += w.f_bytes;
    w.w_flops = 0;
  }
  if (tr.recompute == Recompute::Ops) {
    // torchtitan's checkpointing by op (op_checkpoint.hpp): the layer's input, the saved
    // products' outputs and flash attention's output and log-sum-exp stay; B runs the other
    // products and every element-wise kernel again, and W inside it, as under full recompute.
    const OpCheckpoint policy = op_checkpoint(m, tr, mlp_width);
    kept = x.T * x.h * x.e + x.T * (policy.saved_width + double(m.q_hidden())) * x.e + x.a * x.T * 4;
    for_w = 0;
    double again = 0;
    for (const Linear& l : policy.recomputed) again += 2 * x.T * double(l.in) * double(l.out);
    w.recompute_flops += again;
    w.b_flops += again + w.w_flops;
    w.b_bytes += w.f_bytes;
    w.w_flops = 0;
  }
  w.activation_bytes = bytes(kept);
  w.w_activation_bytes = bytes(for_w);
  // The host's calls (host_launch.hpp), as Megatron-Core's Transformer Engine layer makes them:
  // each attention linear (its norm fused in) and the attention core, then each MLP linear.
  w.host.attention_modules = double(a.linears.size()) + 1;
  w.host.modules = w.host.attention_modules + double(mlp.size());
  w.host.recompute_forward = tr.recompute == Recompute::Full || tr.recompute == Recompute::Ops;
  // Each layer's two all-gathers and two reduce-scatters, each way (the recompute repeats F's;
  // by op, only its gathers: the scatters' outputs are on torchtitan's save list); without
  // sequence parallelism two all-reduces, of twice the bytes each: the same time.
  add_collectives(w, x, 4, tr.recompute == Recompute::Full ? 8 : tr.recompute == Recompute::Ops ? 6 : 4);
  per_rank(w, x.t);
  if (!tr.sequence_parallel) add_replicated(w, m, tr, x, !mlp.empty());

  // Linear weights split over the ranks, MLA's down projections whole; norms and GPT-2's
  // row-parallel biases stay whole.
  double split = 0, whole = (m.layer_norm ? 4 : 2) * x.h + a.latent_norm_width;
  for (const std::vector<Linear>* group : {&a.linears, &mlp}) {
    for (const Linear& l : *group) (l.split == Linear::Split::None ? whole : split) += double(l.in) * double(l.out);
  }
  split += a.split_biases + (m.attention_sinks ? double(m.heads) : 0.0);
  if (m.qk_norm) whole += m.qk_norm_across_heads ? qk_norm_width(m) : 2.0 * m.head_dim();
  if (m.output_bias) whole += x.h;  // row-parallel: every rank adds it once
  if (m.biases) {
    split += double(m.q_hidden() + 2 * m.kv_hidden()) + f;  // column-parallel biases: QKV and the first MLP matrix
    whole += 2 * x.h;                                       // row-parallel biases: the output projection and the second
  }
  w.params = static_cast<std::int64_t>(split / x.t + whole);
  return w;
}

PieceWork layer_work(const ModelConfig& m, const TrainingSettings& tr, const LayerKind& kind) {
  const auto work = [&](const TrainingSettings& t) {
    if (kind.experts) return moe_layer_work(m, t, kind);  // its attention is block_work's (moe_work.cpp)
    return block_work(m, t, kind, m.ffn);
  };
  PieceWork w = work(tr);
  if (tr.recompute != Recompute::None) {
    // B makes again what F did not keep, one layer at a time, and holds it while it runs.
    TrainingSettings keep_all = tr;
    keep_all.recompute = Recompute::None;
    const Bytes all = work(keep_all).activation_bytes;
    w.b_workspace_bytes = all > w.activation_bytes ? all - w.activation_bytes : 0;
  }
  return w;
}

PieceWork layer_work(const ModelConfig& m, const TrainingSettings& tr) {
  return layer_work(m, tr, layer_kind(m, 0));
}

PieceWork embedding_work(const ModelConfig& m, const TrainingSettings& tr) {
  const Shape x = shape_of(m, tr);
  PieceWork w;
  // A gather of T rows forward (plus the position embedding's add); the weight gradient
  // scatter-adds T rows into an fp32 gradient. No input gradient: the inputs are token ids.
  w.f_bytes = 2 * x.T * x.h * x.e + (m.positions > 0 ? 3 * x.T * x.h * x.e : 0.0) +
              (m.hidden_dropout ? (2 * x.e + 1) * x.T * x.h : 0.0);
  w.w_bytes = x.T * x.h * (x.e + 8) * (m.positions > 0 ? 2 : 1);
  add_collectives(w, x, 1, 0);  // the vocabulary-parallel lookup's reduce-scatter
  per_rank(w, x.t);
  // Every rank keeps all the int64 token ids (W scatters by them); the dropout mask is split.
  w.activation_bytes = bytes(x.T * 8 + (m.hidden_dropout ? x.T * x.h / x.t : 0.0));
  w.w_activation_bytes = bytes(x.T * 8);
  w.params =
      static_cast<std::int64_t>(x.V * x.h / x.t + double(m.positions) * x.h + (m.embedding_norm ? 2 * x.h : 0.0));
  return w;
}

namespace {

// The final norm, the output head and the loss, without multi-token prediction.
PieceWork loss_work(const ModelConfig& m, const TrainingSettings& tr) {
  const Shape x = shape_of(m, tr);
  PieceWork w;
  const double gemm = 2 * x.T * x.h * x.V;  // logits = hidden x head^T, then its two gradients
  w.f_flops = gemm;
  w.b_flops = gemm;
  w.w_flops = gemm;
  // The final norm, then the loss in fp32 over the logits, as its kernels run it.
  const bool loss_parallel = torch_loss_parallel(tr.loss, tr.tp);
  const KernelTraffic loss = loss_traffic(tr.loss, x.e, loss_parallel);
  w.f_bytes = x.norm.forward * x.T * x.h + x.T * x.V * loss.forward;
  w.b_bytes = x.norm.backward * x.T * x.h + x.T * x.V * loss.backward;
  // F keeps what the norm keeps, the head's input and the fp32 softmax; W needs the head's input
  // and the logits' gradient.
  w.activation_bytes = bytes((x.norm.kept + x.e) * x.T * x.h + x.T * x.V * 4);
  w.w_activation_bytes = bytes(x.T * x.h * x.e + x.T * x.V * x.e);
  if (tr.loss != Loss::Torch) {
    // Megatron's vocabulary-parallel cross entropy (megatron/core/tensor_parallel/cross_entropy.py
    // at d98e8a64) copies the 16-bit logits to fp32 and works on that copy in place, which it
    // keeps (TE's fused one, transformer_engine/pytorch/cross_entropy.py, keeps an fp32 gradient
    // alike): F holds the 16-bit logits beside it; B turns the kept copy into the gradient in
    // place, and its cast back to 16 bits is made beside it.
    w.f_workspace_bytes = bytes(x.T * x.V * x.e);
    w.b_workspace_bytes = bytes(x.T * x.V * x.e);
  } else if (!loss_parallel) {
    // torch's cross_entropy on logits.float() (torchtitan's loss at 9dec370) keeps its
    // log-softmax, fp32; F holds the 16-bit logits and the fp32 copy beside it, B the gradient
    // of the log-softmax and its own input gradient, both fp32, while the kept one lives.
    w.f_workspace_bytes = bytes(x.T * x.V * (x.e + 4));
    w.b_workspace_bytes = bytes(x.T * x.V * 8);
  } else {
    // The same under PyTorch's loss parallelism keeps the same log-softmax, but its op-by-op
    // log_softmax holds two fp32 temporaries more at once (x - max and its exp, beside the copy
    // and the 16-bit logits, before the result exists), and its fused backward three fp32
    // tensors beside the kept one (the zeros made into the gradient, their sum with exp of the
    // kept output, and that times the per-token gradient): torch/distributed/tensor/parallel/loss.py.
    w.f_workspace_bytes = bytes(x.T * x.V * (x.e + 8));
    w.b_workspace_bytes = bytes(x.T * x.V * 12);
  }
  if (tr.recompute == Recompute::Full) {
    w.b_flops += w.w_flops;  // as in layer_work: W runs inside B
    w.w_flops = 0;
    w.w_activation_bytes = 0;
  }
  add_collectives(w, x, 1, 1);  // gathering the sequence-parallel hidden state, and back
  per_rank(w, x.t);
  if (!tr.sequence_parallel && x.t > 1) {  // the final norm on all T tokens, its input and output kept whole
    const double rest = 1 - 1 / x.t;
    w.f_bytes += x.norm.forward * x.T * x.h * rest;
    w.b_bytes += x.norm.backward * x.T * x.h * rest;
    w.activation_bytes += bytes((x.norm.kept + x.e) * x.T * x.h * rest);
    w.w_activation_bytes += bytes(x.T * x.h * x.e * rest);
  }
  w.params = static_cast<std::int64_t>(x.V * x.h / x.t + (m.layer_norm ? 2 : 1) * x.h);
  return w;
}

// One depth of DeepSeek-V3's multi-token prediction (DeepSeek-V3 report, section 2.2): the
// next tokens' embeddings (the embedding's weights, shared with the first stage) and the
// previous depth's hidden state, each normed, joined by a 2h x h projection, one transformer
// layer, then the shared head's norm, logits and loss again.
PieceWork mtp_depth_work(const ModelConfig& m, const TrainingSettings& tr) {
  const Shape x = shape_of(m, tr);
  PieceWork w = layer_work(m, tr, mtp_layer_kind(m));
  PieceWork logits = loss_work(m, tr);
  logits.params = static_cast<std::int64_t>((m.layer_norm ? 2 : 1) * x.h);  // the head is shared; its norm is not
  w += logits;
  PieceWork join;
  join.f_flops = join.b_flops = join.w_flops = 2 * x.T * 2 * x.h * x.h;
  join.f_bytes = 2 * x.T * x.h * x.e + 2 * x.norm.forward * x.T * x.h;  // the embedding's gather, two norms
  join.b_bytes = 2 * x.norm.backward * x.T * x.h;
  join.activation_bytes = bytes((2 * x.norm.kept + x.e) * x.T * x.h);  // the norms' and the projection's
  join.w_activation_bytes = bytes(3 * x.T * x.h * x.e);                // the projection's input and output gradient
  if (tr.recompute == Recompute::Full) {
    join.b_flops += join.w_flops;
    join.w_flops = 0;
    join.w_activation_bytes = 0;
  }
  per_rank(join, x.t);
  join.params = static_cast<std::int64_t>(2 * x.h * x.h / x.t + 2 * x.h);
  w += join;
  return w;
}

}  // namespace

PieceWork head_work(const ModelConfig& m, const TrainingSettings& tr) {
  PieceWork w = loss_work(m, tr);
  if (m.mtp_layers > 0) {
    // The embedding's weights, kept on the last stage too, as a tied head's are.
    w.params += static_cast<std::int64_t>(double(m.vocab) * m.hidden / tr.tp);
    const PieceWork depth = mtp_depth_work(m, tr);
    for (int d = 0; d < m.mtp_layers; ++d) w += depth;
  }
  return w;
}

std::int64_t layers_parameters(const ModelConfig& model, const TrainingSettings& whole) {
  const LayerKinds k = layer_kinds(model);
  std::vector<std::int64_t> per_kind;
  for (const LayerKind& kind : k.kinds) per_kind.push_back(layer_work(model, whole, kind).params);
  std::int64_t total = 0;
  for (int i : k.of_layer) total += per_kind[std::size_t(i)];
  return total;
}

std::int64_t model_parameters(const ModelConfig& model) {
  TrainingSettings whole;  // tensor parallelism 1: every parameter counted once
  whole.tp = 1;
  ModelConfig main = model;  // what model cards count: without the multi-token prediction modules
  main.mtp_layers = 0;
  std::int64_t total =
      layers_parameters(main, whole) + embedding_work(main, whole).params + head_work(main, whole).params;
  if (model.tied_embeddings) total -= static_cast<std::int64_t>(model.vocab) * model.hidden;
  return total;
}

}  // namespace pipeplan
