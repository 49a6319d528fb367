#include "estimate/piece_gemms.hpp"

#include "estimate/context_parallel.hpp"

namespace pipeplan {

namespace {

void linear(PhaseGemms& out, std::int64_t tokens, std::int64_t in, std::int64_t features) {
  out.f.push_back({tokens, features, in, 1, false});  // Y = X W^T
  out.b.push_back({tokens, in, features, 1, false});  // dX = dY W
  out.w.push_back({features, in, tokens, 1, true});   // dW += dY^T X, into the fp32 gradient
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
  const std::int64_t tokens = context_tokens(tr);  // a context-parallel rank's
  const std::int64_t h = m.hidden, hk = m.kv_hidden(), f = m.ffn;
  PhaseGemms g;
  linear(g, tokens, h, (h + 2 * hk) / t);               // QKV, column-parallel
  linear(g, tokens, h / t, h);                          // output projection, row-parallel
  linear(g, tokens, h, (m.gated_mlp ? 2 : 1) * f / t);  // gate and up (or GELU's first), column-parallel
  linear(g, tokens, f / t, h);                          // down, row-parallel
  fold_for_full_recompute(g, tr, true);
  return g;
}

PhaseGemms head_linear_gemms(const ModelConfig& m, const TrainingSettings& tr) {
  PhaseGemms g;
  linear(g, context_tokens(tr), m.hidden, m.vocab / tr.tp);
  fold_for_full_recompute(g, tr, false);  // the head keeps its inputs: no forward again (piece_work)
  return g;
}

}  // namespace pipeplan
