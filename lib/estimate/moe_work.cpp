#include "estimate/moe_work.hpp"

#include <algorithm>
#include <string>

#include "model/error.hpp"

namespace pipeplan {

namespace {

void check_divisions(const ModelConfig& m, const TrainingSettings& tr) {
  const auto divides = [](int n, int by, const std::string& flag, const char* what) {
    if (by < 1 || n % by != 0) {
      throw Error(flag + " " + std::to_string(by) + ": must divide " + what + " (" + std::to_string(n) + ")");
    }
  };
  divides(m.moe.experts, tr.ep, "--ep", "the experts");
  divides(m.moe.ffn, tr.tp, "--tp", "each expert's FFN width");
  if (m.moe.shared_ffn > 0) divides(m.moe.shared_ffn, tr.tp, "--tp", "the shared expert's FFN width");
}

}  // namespace

PieceWork moe_mlp_work(const ModelConfig& m, const TrainingSettings& tr) {
  check_divisions(m, tr);
  const double T = double(tr.seq) * tr.micro_batch, h = m.hidden, e = element_bytes(tr.dtype), t = tr.tp;
  const double E = m.moe.experts, k = m.moe.per_token, fe = m.moe.ffn, fs = m.moe.shared_ffn, ep = tr.ep;
  const double routed = T * k;  // token copies the experts process: with balanced routing, as many
                                // reach each rank as leave it, whatever ep is
  PieceWork w;
  // GEMMs (2 FLOPs a multiply-add), each once in F, B and W: the router's h x E logits, each
  // routed copy through one SwiGLU expert (gate, up, down), every token through the shared
  // expert and Qwen-MoE's h x 1 gate on it.
  const double gemm = 2 * T * h * E + 6 * routed * h * fe + 6 * T * h * fs + (m.moe.shared_gate ? 2 * T * h : 0.0);
  w.f_flops = w.b_flops = w.w_flops = gemm;
  // Element-wise: the router's fp32 softmax and top-k read and write T x E; the dispatch's
  // permutation copies each routed token (read, write); the experts' SiLU-and-product (3 per
  // element); the combine reads the k outputs and writes one weighted sum; the shared expert's
  // activation and its add to the routed output. The backward moves twice as much, as for a layer.
  const double elementwise = 2 * T * E * 4 + 2 * routed * h * e + 3 * routed * fe * e + (routed + T) * h * e +
                             (fs > 0 ? 3 * T * fs * e + 3 * T * h * e : 0.0);
  w.f_bytes = elementwise;
  w.b_bytes = 2 * elementwise;
  // F keeps the router's fp32 probabilities, the permuted inputs of the experts, their SwiGLU
  // intermediates (gate, SiLU, up, product), their outputs (the combine's weights take a
  // gradient), and the shared expert's intermediates. The block's input is kept by the layer's
  // dense part (the input of its third linear group).
  double kept = T * E * 4 + routed * h * e + 4 * routed * fe * e + routed * h * e + 4 * T * fs * e;
  // W needs each expert GEMM's input and output gradient, T·k·e(h + f) and T·k·e(2f + h), the
  // shared expert's down input and gate/up gradients 3T·fs·e, and the router's logits' gradient;
  // the block's input and its output gradient are the dense part's.
  double for_w = routed * e * (2 * h + 3 * fe) + 3 * T * fs * e + T * E * e;
  int backward_all_to_alls = 2;           // the gradients of the combine and of the dispatch
  if (tr.recompute == Recompute::Full) {  // as layer_work: B runs the block again, and W inside it
    kept = 0;
    for_w = 0;
    w.recompute_flops = w.f_flops;
    w.b_flops += w.f_flops + w.w_flops;
    w.w_flops = 0;
    w.b_bytes += w.f_bytes;
    backward_all_to_alls += 2;  // the recomputed forward dispatches and combines again
  }
  // Sequence parallelism splits the tokens, expert tensor parallelism the experts' widths: the
  // work per rank is the block's over t, as for the dense layer.
  w.f_flops /= t;
  w.b_flops /= t;
  w.w_flops /= t;
  w.recompute_flops /= t;
  w.f_bytes /= t;
  w.b_bytes /= t;
  w.activation_bytes = static_cast<Bytes>(kept / t + 0.5);
  w.w_activation_bytes = static_cast<Bytes>(for_w / t + 0.5);
  if (tr.ep > 1) {
    // Each rank's routed copies, h·e bytes each, leave for the ep - 1 other ranks' experts in
    // (ep - 1)/ep of the cases (Megatron's all-to-all token dispatcher; Lepikhin et al. 2020).
    w.all_to_all_bytes = (T / t) * k * h * e * (ep - 1) / ep;
    w.f_all_to_alls = 2;
    w.b_all_to_alls = backward_all_to_alls;
  }
  // The router and the shared expert's gate are replicated; the experts (E/ep on this rank) and
  // the shared expert are split t ways.
  w.expert_params = static_cast<std::int64_t>(double(expert_weights(m)) * (E / ep) / t);
  w.params = w.expert_params + static_cast<std::int64_t>(h * E + (m.moe.biases ? E : 0.0) + 3 * h * fs / t +
                                                         (m.moe.shared_gate ? h : 0.0));
  return w;
}

std::int64_t expert_weights(const ModelConfig& m) {
  const std::int64_t h = m.hidden, f = m.moe.ffn;
  return 3 * h * f + (m.moe.biases ? 2 * f + h : 0);
}

PieceWork moe_layer_work(const ModelConfig& m, const TrainingSettings& tr, const LayerKind& kind) {
  PieceWork w = block_work(m, tr, kind, 0);  // attention, norms, residuals: the MLP's width 0
  w += moe_mlp_work(m, tr);
  return w;
}

AllToAllMs all_to_all_ms(const PieceWork& w, const LinkSpec& link) {
  const double one = link.latency_ms + w.all_to_all_bytes / (link.bandwidth_gb_per_s * 1e9) * 1e3;
  return {w.f_all_to_alls * one, w.b_all_to_alls * one};
}

std::optional<double> overlapped_f_and_b_ms(const StageCost& f, const AllToAllMs& fa, const StageCost& bw,
                                            const AllToAllMs& ba) {
  const double comm = fa.f_ms + ba.b_ms;
  if (comm <= 0) return std::nullopt;
  const double compute = (f.f_ms - fa.f_ms) + (bw.b_ms + bw.w_ms - ba.b_ms);
  return std::max(compute, comm);
}

std::int64_t active_parameters(const ModelConfig& m) {
  if (!m.is_moe()) return model_parameters(m);
  std::int64_t expert_layers = 0;
  for (int i = 0; i < m.layers; ++i) expert_layers += layer_kind(m, i).experts ? 1 : 0;
  const std::int64_t idle_experts = m.moe.experts - m.moe.per_token;
  return model_parameters(m) - idle_experts * expert_weights(m) * expert_layers;
}

}  // namespace pipeplan
