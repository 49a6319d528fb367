#include "estimate/moe_work.hpp"

#include <algorithm>
#include <string>

#include "estimate/context_parallel.hpp"
#include "estimate/elementwise_kernels.hpp"
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
  divides(m.moe.ffn, tr.expert_tp(), tr.etp > 0 ? "--etp" : "--tp", "each expert's FFN width");
  if (m.moe.shared_ffn > 0) divides(m.moe.shared_ffn, tr.tp, "--tp", "the shared expert's FFN width");
  if (tr.moe_capacity_factor < 0) {
    throw Error("--moe-capacity-factor " + std::to_string(tr.moe_capacity_factor) +
                ": must be positive (0 or absent: dropless)");
  }
}

}  // namespace

GptOssExpertOps gpt_oss_expert_ops(const ModelConfig& m, double e) {
  GptOssExpertOps ops;
  const double h = m.hidden, fe = m.moe.ffn;
  if (m.moe.activation_clamp > 0) {
    // weighted_bias_quick_geglu_impl (megatron/core/fusions/fused_bias_geglu.py, from 2e29a5e1e3,
    // 2025-09-09, to d98e8a64): before its fused kernel, the 2f-wide input's gate half is clamped
    // from above and its linear half both ways, and the halves joined again by torch.cat, op by
    // op: each of the three reads and writes its elements (4e per element of the 2f). Back, each
    // clamp's gradient reads the gradient and its input and writes one (3e), the chunk's joins
    // them (2e). The clamps keep their input, the first product's 2f-wide output.
    ops.clamp_forward = 4 * e * 2 * fe;
    ops.clamp_kept = e * 2 * fe;
    ops.forward += ops.clamp_forward;
    ops.backward += 5 * e * 2 * fe;
    ops.kept += ops.clamp_kept;
  }
  if (m.moe.biases) {
    // TEGroupedMLP._apply_bias (megatron/core/transformer/moe/experts.py from a329dd6da5,
    // 2025-09-22, the path the published runs took; d98e8a64 adds a packed one): the second
    // product's bias weighted by the routing probability, added expert by expert op by op in the
    // probabilities' dtype, the training's (the router's logits' dtype, moe_router_dtype unset
    // by Megatron-Bridge's GPT-OSS configurations): b·p written (e), t + b·p reads both and
    // writes (3e), torch.cat reads and writes (2e), per element of the h-wide output. Back: the
    // gradient's products with p and with b each read it, write and reduce (3e each).
    ops.forward += 6 * e * h;
    ops.backward += 6 * e * h;
  }
  return ops;
}

PieceWork moe_mlp_work(const ModelConfig& m, const TrainingSettings& tr) {
  check_divisions(m, tr);
  check_context_parallel(tr);
  // Per rank: tl tokens, the rank's sequence-parallel share of its context-parallel chunk, route
  // tl·k copies; with balanced routing as many reach each rank as leave it, whatever ep is. Expert
  // tensor parallelism gathers the etp ranks' copies (etp·tl·k h-wide rows) for experts whose
  // widths are split etp ways, so each rank's expert products are tl·k rows' worth.
  const double t = tr.tp, etp = tr.expert_tp();
  const double tl = double(context_tokens(tr)) / t, h = m.hidden, e = element_bytes(tr.dtype);
  const double E = m.moe.experts, k = m.moe.per_token, fe = m.moe.ffn, fs = m.moe.shared_ffn, ep = tr.ep;
  // With a capacity factor every expert takes exactly cf times its balanced share, padded (cf > 1)
  // or dropping the rest (cf < 1): the rows dispatched, computed and kept scale by cf.
  const double capacity = tr.moe_capacity_factor > 0 ? tr.moe_capacity_factor : 1.0;
  const double routed = tl * k * capacity;  // copies this rank routes
  const double gathered = etp * routed;     // h-wide rows its experts see
  PieceWork w;
  // GEMMs (2 FLOPs a multiply-add), each once in F, B and W: the router's h x E logits, each
  // routed copy through one SwiGLU expert (gate, up, down), every token through the shared
  // expert (tensor-parallel as a dense MLP) and Qwen-MoE's h x 1 gate on it.
  const double gemm = 2 * tl * h * E + 6 * routed * h * fe + 6 * tl * h * fs + (m.moe.shared_gate ? 2 * tl * h : 0.0);
  w.f_flops = w.b_flops = w.w_flops = gemm;
  // Element-wise: the router's fp32 softmax and top-k read and write tl x E; the dispatch's
  // permutation copies each routed token (read, write); the combine reads the k outputs and
  // writes one weighted sum; the shared expert's add to the routed output. Their backward moves
  // twice as much, as for a layer. The experts' and the shared expert's SiLU-and-product move
  // what elementwise_kernels.hpp counts, each way.
  const KernelTraffic act = activation_traffic(tr.elementwise, true, e);
  const double moves = 2 * tl * E * 4 + 2 * routed * h * e + (routed + tl) * h * e + (fs > 0 ? 3 * tl * h * e : 0.0);
  const double activated = routed * fe + tl * fs;
  w.f_bytes = moves + act.forward * activated;
  w.b_bytes = 2 * moves + act.backward * activated;
  // F keeps the router's fp32 probabilities, the gathered inputs of the experts, what their
  // SwiGLU keeps (elementwise_kernels.hpp) and its output (the down products' input), each routed
  // copy's fp32 weight, and the shared expert's alike. Megatron-Core multiplies the router's
  // weights in inside the experts' activation (TEGroupedMLP's weighted_bias_swiglu, from core
  // v0.13's "Memory efficient token permutation", 2659630721), which saves its input and the
  // weights, so the combine's unpermute takes no weights and keeps no expert outputs. The block's
  // input is kept by the layer's dense part.
  const double swiglu_kept = act.kept + e;
  double kept = tl * E * 4 + gathered * h * e + swiglu_kept * routed * fe + routed * 4 + swiglu_kept * tl * fs;
  const GptOssExpertOps gpt_oss = gpt_oss_expert_ops(m, e);
  w.f_bytes += gpt_oss.forward * routed;
  w.b_bytes += gpt_oss.backward * routed;
  kept += gpt_oss.kept * routed;
  // W needs each expert GEMM's input and output gradient: the first's gathered input and its
  // 2f-wide gradient, the second's f-wide input and its gathered h-wide gradient; the shared
  // expert's down input and gate/up gradients 3·tl·fs·e, and the router's logits' gradient.
  double for_w = e * (2 * gathered * h + 3 * routed * fe) + 3 * tl * fs * e + tl * E * e;
  int backward_all_to_alls = 2;  // the gradients of the combine and of the dispatch
  // Megatron-Core's modules of selective recompute (recompute_modules.hpp; moe_layer.py,
  // experts.py and shared_experts.py at d98e8a64). The whole block: only its input stays (the
  // layer's pre-MLP norm's output, which the layer keeps), and B routes, dispatches, computes and
  // combines again before its backward; W still runs apart, on what that made.
  if (recomputes(tr, RecomputeModule::Moe)) {
    kept = 0;
    w.recompute_flops = w.f_flops;
    w.b_flops += w.f_flops;
    w.b_bytes += w.f_bytes;
    backward_all_to_alls += 2;
  } else {
    if (recomputes(tr, RecomputeModule::MoeAct)) {
      // The experts' activation output, the second products' input, dropped and remade, with
      // what a clamp before it kept (the checkpoint runs the function without autograd).
      kept -= e * routed * fe + gpt_oss.clamp_kept * routed;
      w.b_bytes += act.forward * routed * fe + gpt_oss.clamp_forward * routed;
    }
    if (recomputes(tr, RecomputeModule::SharedExperts) && fs > 0) {
      // The shared expert keeps its input (the norm's output, kept already): its products and
      // activation run again.
      kept -= swiglu_kept * tl * fs;
      w.recompute_flops += 6 * tl * h * fs;
      w.b_flops += 6 * tl * h * fs;
      w.b_bytes += act.forward * tl * fs;
    }
  }
  if (tr.recompute == Recompute::Full) {  // as layer_work: B runs the block again, and W inside it
    kept = 0;
    for_w = 0;
    w.recompute_flops = w.f_flops;
    w.b_flops += w.f_flops + w.w_flops;
    w.w_flops = 0;
    w.b_bytes += w.f_bytes;
    backward_all_to_alls += 2;  // the recomputed forward dispatches and combines again
  }
  w.activation_bytes = static_cast<Bytes>(kept + 0.5);
  w.w_activation_bytes = static_cast<Bytes>(for_w + 0.5);
  // The host's calls (host_launch.hpp), as Megatron-Core's MoE layer makes them: the norm, the
  // router, the dispatcher's preprocessing, dispatch and combine, the experts' grouped MLP and a
  // shared expert's two linears. Dropless, each pass reads the token counts back first.
  w.host.router_modules = 2;  // the router and the dispatch preprocessing
  w.host.modules = 5 + (fs > 0 ? 2 : 0);
  w.host.grouped_mlps = 1;
  w.host.recompute_forward = tr.recompute == Recompute::Full;
  w.host.waits_for_device = tr.moe_capacity_factor <= 0;
  if (tr.ep > 1 || etp > 1) {
    // Each rank's routed copies, h·e bytes each, leave for the ep - 1 other ranks' experts in
    // (ep - 1)/ep of the cases (Megatron's all-to-all token dispatcher; Lepikhin et al. 2020);
    // beside each all-to-all, the etp group gathers the copies (and reduce-scatters the outputs):
    // (etp - 1)/etp of the gathered rows through each rank.
    w.all_to_all_bytes = routed * h * e * (ep - 1) / ep;
    w.all_to_all_token_bytes = tl * h * e;
    if (m.moe.groups_per_token > 0 && m.moe.groups_per_token < m.moe.groups) {
      w.all_to_all_node_limit = m.moe.groups_per_token;
    }
    if (tr.moe_dispatcher == MoeDispatcher::Flex) {
      w.dedup_experts = m.moe.experts;
      w.dedup_per_token = m.moe.per_token;
      w.dedup_ranks = tr.ep;
    }
    w.expert_gather_bytes = (etp - 1) / etp * gathered * h * e;
    w.f_all_to_alls = 2;
    w.b_all_to_alls = backward_all_to_alls;
  }
  // The router and the shared expert's gate are replicated; the experts (E/ep on this rank) are
  // split etp ways, the shared expert tp ways.
  w.expert_params = static_cast<std::int64_t>(double(expert_weights(m)) * (E / ep) / etp);
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
  // The routed block takes the layer's sequence-parallel tokens as they are (its all-to-all and
  // the etp gather take the place of the MLP's all-gather and reduce-scatter); a shared expert,
  // a tensor-parallel MLP, still gathers them.
  if (m.moe.shared_ffn == 0) {
    w.f_collectives /= 2;
    w.b_collectives /= 2;
  }
  w += moe_mlp_work(m, tr);
  return w;
}

double remote_groups_reached(int experts, int per_token, int groups) {
  if (groups <= 1 || experts < groups) return 0;
  // The chance that one group holds none of a token's k distinct experts, E/g of the E in each:
  // C(E - E/g, k) / C(E, k), a product of k ratios.
  const double e = experts, outside = e - e / groups;
  double none = 1;
  for (int i = 0; i < per_token; ++i) none *= std::max(0.0, (outside - i) / (e - i));
  return (groups - 1) * (1 - none);
}

AllToAllMs all_to_all_ms(const PieceWork& w, const LinkSpec& link, const LinkSpec* gather_link, int domains) {
  // The all-to-all's bytes go point to point; the expert-tensor gather is a ring collective.
  const auto send_ms = [](double bytes, const LinkSpec& l) { return bytes > 0 ? l.send_ms(bytes) : 0.0; };
  const auto gather_ms = [](double bytes, const LinkSpec& l) { return bytes > 0 ? l.collective_ms(bytes) : 0.0; };
  double bytes = w.all_to_all_bytes;
  if (w.dedup_ranks > 1) {
    // The flex dispatcher sends a token once to each group holding any of its experts: the
    // other domains when the group spans several (the fan-out inside a domain runs under that
    // transfer), else the other ranks.
    const int groups = domains > 1 ? domains : w.dedup_ranks;
    bytes =
        std::min(bytes, w.all_to_all_token_bytes * remote_groups_reached(w.dedup_experts, w.dedup_per_token, groups));
  }
  if (domains > 1 && w.all_to_all_node_limit > 0) {
    const double d = domains;
    bytes = std::min(bytes, w.all_to_all_token_bytes * std::min(double(w.all_to_all_node_limit), d) * (d - 1) / d);
  }
  const double one =
      send_ms(bytes, link) + gather_ms(w.expert_gather_bytes, gather_link != nullptr ? *gather_link : link);
  return {w.f_all_to_alls * one, w.b_all_to_alls * one};
}

void check_expert_folding(const ModelConfig& m, const TrainingSettings& tr, int data_parallel) {
  if (!m.is_moe()) {
    if (tr.ep > 1) throw Error("--ep " + std::to_string(tr.ep) + ": the model has no experts to spread");
    if (tr.etp > 0 && tr.etp != tr.tp) throw Error("--etp " + std::to_string(tr.etp) + ": the model has no experts");
    return;
  }
  const long stage = long(tr.tp) * tr.cp * data_parallel;
  const long folded = long(tr.expert_tp()) * tr.ep;
  if (tr.ep < 1 || tr.etp < 0 || stage % folded != 0) {
    throw Error("--etp " + std::to_string(tr.expert_tp()) + " x --ep " + std::to_string(tr.ep) +
                ": must divide tp x cp x dp = " + std::to_string(stage) +
                ", the ranks of a pipeline stage the expert groups fold over");
  }
}

std::optional<double> overlapped_f_and_b_ms(const StageCost& f, const AllToAllMs& fa, const StageCost& bw,
                                            const AllToAllMs& ba, double share) {
  const double comm = fa.f_ms + ba.b_ms;
  if (comm <= 0) return std::nullopt;
  const double compute = (f.f_ms - fa.f_ms) + (bw.b_ms + bw.w_ms - ba.b_ms);
  if (share >= 1) return compute + comm;  // the all-to-alls would take every SM: no overlap
  // While both run the compute moves at 1 - share of its rate, losing `share` of the time they
  // share, which lasts the all-to-alls or until the compute, so slowed, is done.
  const double together = std::min(comm, compute / (1 - share));
  return std::max(comm, compute + together * share);
}

std::int64_t active_parameters(const ModelConfig& m) {
  if (!m.is_moe()) return model_parameters(m);
  std::int64_t expert_layers = 0;
  for (int i = 0; i < m.layers; ++i) expert_layers += layer_kind(m, i).experts ? 1 : 0;
  const std::int64_t idle_experts = m.moe.experts - m.moe.per_token;
  return model_parameters(m) - idle_experts * expert_weights(m) * expert_layers;
}

}  // namespace pipeplan
