#include "estimate/piece_gemms.hpp"

#include "estimate/attention_shape.hpp"
#include "estimate/context_parallel.hpp"

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

}  // namespace

PhaseGemms layer_linear_gemms(const ModelConfig& m, const TrainingSettings& tr, const LayerKind& kind) {
  const std::int64_t t = tr.tp;
  const std::int64_t tokens = context_tokens(tr);  // a context-parallel rank's
  PhaseGemms g;
  for (const Linear& l : attention_shape(m).linears) add(g, l, tokens, t, tr.flash_attention);  // O reads it
  // A dense MLP, or a mixture of experts' shared expert (its routed experts' grouped products
  // are priced from moe_work's FLOPs as large products).
  for (const Linear& l : mlp_linears(m, kind.experts ? m.moe.shared_ffn : m.ffn)) add(g, l, tokens, t, false);
  fold_for_full_recompute(g, tr, true);
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
