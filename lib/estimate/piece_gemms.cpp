#include "estimate/piece_gemms.hpp"

namespace pipeplan {

namespace {

void linear(PhaseGemms& out, std::int64_t tokens, std::int64_t in, std::int64_t features) {
  out.f.push_back({tokens, features, in, 1, false});  // Y = X W^T
  out.b.push_back({tokens, in, features, 1, false});  // dX = dY W
  out.w.push_back({features, in, tokens, 1, true});   // dW += dY^T X, into the fp32 gradient
}

// The layer's tensors on a rank (LinearTensors): the whole layer's, `in` x `out` over T tokens, over t.
void tensors(PhaseGemms& out, double tokens, double in, double features, double t, bool input_kept = false) {
  out.linears.push_back({tokens * in / t, tokens * features / t, in * features / t, input_kept});
}

// Full recompute runs the forward again in B, and W inside B.
void fold_for_full_recompute(PhaseGemms& g, const TrainingSettings& tr, bool repeats_forward) {
  if (tr.recompute != Recompute::Full) return;
  if (repeats_forward) g.b.insert(g.b.end(), g.f.begin(), g.f.end());
  g.b.insert(g.b.end(), g.w.begin(), g.w.end());
  g.w.clear();
}

}  // namespace

PhaseGemms layer_linear_gemms(const ModelConfig& m, const TrainingSettings& tr) {
  const std::int64_t t = tr.tp;
  const std::int64_t tokens = std::int64_t{tr.seq} * tr.micro_batch;
  const std::int64_t h = m.hidden, hk = m.kv_hidden(), f = m.ffn;
  PhaseGemms g;
  linear(g, tokens, h, (h + 2 * hk) / t);               // QKV, column-parallel
  linear(g, tokens, h / t, h);                          // output projection, row-parallel
  linear(g, tokens, h, (m.gated_mlp ? 2 : 1) * f / t);  // gate and up (or GELU's first), column-parallel
  linear(g, tokens, f / t, h);                          // down, row-parallel
  const double T = double(tokens), ht = double(h), tt = double(t);
  tensors(g, T, ht, double(h + 2 * hk), tt);
  tensors(g, T, ht, ht, tt, tr.flash_attention);  // the attention output, which flash attention's backward keeps
  tensors(g, T, ht, double((m.gated_mlp ? 2 : 1) * f), tt);
  tensors(g, T, double(f), ht, tt);
  fold_for_full_recompute(g, tr, true);
  return g;
}

PhaseGemms head_linear_gemms(const ModelConfig& m, const TrainingSettings& tr) {
  PhaseGemms g;
  linear(g, std::int64_t{tr.seq} * tr.micro_batch, m.hidden, m.vocab / tr.tp);
  fold_for_full_recompute(g, tr, false);  // the head keeps its inputs: no forward again (piece_work)
  return g;
}

}  // namespace pipeplan
