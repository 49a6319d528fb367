#include "estimate/piece_gemms.hpp"

#include "estimate/attention_shape.hpp"

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

// One of attention_shape's linears on one rank: split by columns or rows as Megatron-LM runs
// them (the sequence gathered whole), or whole on the rank's share of the tokens.
void add(PhaseGemms& out, const Linear& l, std::int64_t tokens, std::int64_t t) {
  switch (l.split) {
    case Linear::Split::Columns:
      return linear(out, tokens, l.in, l.out / t);
    case Linear::Split::Rows:
      return linear(out, tokens, l.in / t, l.out);
    case Linear::Split::None:
      return linear(out, tokens / t, l.in, l.out);
  }
}

}  // namespace

PhaseGemms layer_linear_gemms(const ModelConfig& m, const TrainingSettings& tr, const LayerKind& kind) {
  const std::int64_t t = tr.tp;
  const std::int64_t tokens = std::int64_t{tr.seq} * tr.micro_batch;
  PhaseGemms g;
  for (const Linear& l : attention_shape(m).linears) add(g, l, tokens, t);
  // A dense MLP, or a mixture of experts' shared expert (its routed experts' grouped products
  // are priced from moe_work's FLOPs as large products).
  for (const Linear& l : mlp_linears(m, kind.experts ? m.moe.shared_ffn : m.ffn)) add(g, l, tokens, t);
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
