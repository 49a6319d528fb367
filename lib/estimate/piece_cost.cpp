#include "estimate/piece_cost.hpp"

#include <algorithm>

#include "estimate/attention_kernel.hpp"
#include "estimate/collective_link.hpp"
#include "estimate/context_parallel.hpp"
#include "estimate/moe_work.hpp"
#include "estimate/sustained_gemm.hpp"
#include "estimate/tp_overlap.hpp"
#include "estimate/unfused_attention.hpp"

namespace pipeplan {

namespace {

double ms_for_flops(double flops, const GpuSpec& gpu, const Efficiency& e, DType dtype) {
  return flops / (gpu.peak_flops(dtype) * gemm_fraction(e, gpu, false)) * 1e3;
}

// The attention core, of which `forward` FLOPs run its forward and `backward` its backward:
// flash attention's fused kernel at the fractions of the peak it is measured to reach each way
// for the layer's call (attention_kernel.hpp); unfused, cuBLAS's batched products at their shapes'
// rates (unfused_attention.hpp).
double attention_ms(double forward, double backward, const GpuSpec& gpu, const Efficiency& e,
                    const TrainingSettings& tr, const AttentionCall& call) {
  if (!tr.flash_attention) return unfused_attention_ms(forward, backward, call, gpu, e, tr.dtype);
  // A direction without work asks for no rate (the context-parallel ring times each apart).
  const auto at_rate = [&](double flops, bool is_forward) {
    return flops == 0 ? 0.0 : flops / attention_fraction(e, gpu, is_forward, call);
  };
  return (at_rate(forward, true) + at_rate(backward, false)) / gpu.peak_flops(tr.dtype) * 1e3;
}

double ms_for_collectives(int count, double bytes, const LinkSpec& link) {
  return count == 0 ? 0.0 : count * link.collective_ms(bytes);
}

}  // namespace

double ms_for_bytes(double bytes, double gb_per_s, double efficiency) {
  return bytes / (gb_per_s * 1e9 * efficiency) * 1e3;
}

const LinkSpec& node_or_network_link(bool within_node, const GpuSpec& gpu) {
  return within_node ? gpu.intra_node : gpu.inter_node;
}

GroupLinks group_links(const GpuSpec& gpu, const RankGrid& grid) {
  const bool experts_inside = within_node(grid, RankGroup::Expert);
  // An expert group's etp·ep ranks are consecutive within a stage (the folding's expert rank
  // order, etp innermost): across domains they span that many domains' worth of ranks.
  const long span = long(grid.expert_tp()) * grid.ep;
  const int domains = experts_inside ? 1 : int(std::max(2L, (span + grid.gpus_per_node - 1) / grid.gpus_per_node));
  return {collective_link(gpu, grid, RankGroup::Tensor), node_or_network_link(experts_inside, gpu),
          node_or_network_link(within_node(grid, RankGroup::Context), gpu),
          collective_link(gpu, grid, RankGroup::ExpertTensor), domains};
}

GroupLinks node_links(const GpuSpec& gpu) {
  return {gpu.intra_node, gpu.intra_node, gpu.intra_node, gpu.intra_node};
}

StageCost piece_cost(const PieceWork& w, const GpuSpec& gpu, const Efficiency& e, const TrainingSettings& tr,
                     const GroupLinks* links) {
  return piece_cost(w, PhaseGemms{}, gpu, e, tr, links);
}

PieceParts piece_parts(const PieceWork& w, const PhaseGemms& gemms, const GpuSpec& gpu, const Efficiency& e,
                       const TrainingSettings& tr, const GroupLinks* links) {
  const GroupLinks inside = node_links(gpu);
  const GroupLinks& link = links != nullptr ? *links : inside;
  // The listed products at their shapes' speed (the routed experts' grouped ones among them);
  // of the phase's FLOPs they do not cover, the attention core's at flash attention's rate (its
  // `core_forward` FLOPs, all of F's and B's recompute, at the forward's) and the rest (the
  // router's logits, a piece without a list) at the large-product rate.
  const auto flops_ms = [&](TimeParts& p, double flops, double core, double core_forward,
                            const std::vector<GemmShape>& products) {
    for (const GemmShape& g : products) {
      p.products += gemm_ms(g, gpu, e, tr.dtype);
      flops -= g.flops();
    }
    flops = std::max(flops, 0.0);
    const double in_core = std::min(core, flops);
    const double forward = core > 0 ? in_core * core_forward / core : 0.0;
    p.attention += attention_ms(forward, in_core - forward, gpu, e, tr, w.core_call);
    p.products += ms_for_flops(flops - in_core, gpu, e, tr.dtype);
  };
  // A mixture of experts' dispatch and combine, each with its expert-tensor-parallel gather.
  const AllToAllMs a2a = all_to_all_ms(w, link.experts, &link.expert_tensor, link.expert_domains);
  // Context parallelism's ring: what of its K and V transfers the attention core does not hide,
  // the core at the attention rate as above.
  const RingMs ring = ring_exposed_ms(w.ring, attention_ms(w.ring.f_core_flops, 0.0, gpu, e, tr, w.core_call),
                                      attention_ms(0.0, w.ring.b_core_flops, gpu, e, tr, w.core_call), link.context);
  // Tensor parallelism's collectives: each alone on the stream, or under --tp-comm-overlap
  // beside the products it pairs with (tp_overlap.hpp), whose cutting into chunks the products'
  // line takes.
  const auto tp_ms = [&](TimeParts& part, int collectives, const std::vector<OverlapSpan>& spans,
                         const std::vector<GemmShape>& products) {
    if (!tr.tp_comm_overlap) {
      part.tensor_comm = ms_for_collectives(collectives, w.tp_bytes, link.tensor);
      return;
    }
    const TpOverlapMs o =
        tp_overlap_ms(collectives, link.tensor.collective_ms(w.tp_bytes), spans, products, gpu, e, tr.dtype, tr.tp);
    part.tensor_comm = o.exposed;
    part.products += o.chunked_extra;
    if (tr.tp_overlap_method == TpOverlapMethod::AsyncTp) {
      // tp_bytes is what each rank sends of the tensor, (t - 1) / t of it.
      const double tensor = w.tp_bytes * tr.tp / std::max(tr.tp - 1, 1);
      part.tensor_comm +=
          ms_for_bytes(async_tp_copy_bytes(spans, collectives, tensor, tr.tp), gpu.memory_gb_per_s, e.memory);
    }
  };
  PieceParts p;
  flops_ms(p.f, w.f_flops, w.f_core_flops, w.f_core_flops, gemms.f);
  p.f.elementwise = ms_for_bytes(w.f_bytes + w.ring.merge_f_bytes, gpu.memory_gb_per_s, e.memory);
  tp_ms(p.f, w.f_collectives, gemms.f_overlap, gemms.f);
  p.f.expert_comm = a2a.f_ms;
  p.f.context_comm = ring.f_ms;
  flops_ms(p.b, w.b_flops, w.b_core_flops, w.b_core_forward_flops, gemms.b);
  p.b.elementwise = ms_for_bytes(w.b_bytes + w.ring.merge_b_bytes, gpu.memory_gb_per_s, e.memory);
  tp_ms(p.b, w.b_collectives, gemms.b_overlap, gemms.b);
  p.b.expert_comm = a2a.b_ms;
  p.b.context_comm = ring.b_ms;
  flops_ms(p.w, w.w_flops, 0.0, 0.0, gemms.w);
  p.w.elementwise = ms_for_bytes(w.w_bytes, gpu.memory_gb_per_s, e.memory);
  // The host's launches where the device waits for them (host_launch.hpp); the backward's
  // against B and W together, the layer's backward as Megatron runs it.
  const HostMs host = host_ms(w.host, gpu, tr.cuda_graphs);
  // Full-iteration graphs run a mixture of experts without the read (Megatron-Core's
  // full_iteration needs a fixed per-rank capacity): nothing is launched, nothing is waited for.
  const bool waits = w.host.waits_for_device && tr.cuda_graphs != CudaGraphs::Full;
  p.f.host = exposed_host_ms(host.f_ms, p.f.total(), waits);
  p.b.host = exposed_host_ms(host.b_ms, p.b.total() + p.w.total(), waits);
  return p;
}

StageCost piece_cost(const PieceWork& w, const PhaseGemms& gemms, const GpuSpec& gpu, const Efficiency& e,
                     const TrainingSettings& tr, const GroupLinks* links) {
  const PieceParts p = piece_parts(w, gemms, gpu, e, tr, links);
  StageCost c;
  c.f_ms = p.f.total();
  c.b_ms = p.b.total();
  c.w_ms = p.w.total();
  c.activation_bytes = w.activation_bytes;
  // The gradients B computes at the linear layers' outputs take the place of activations it
  // frees; the memory model holds a_W within a_F (docs/costs.md).
  c.w_activation_bytes = std::min(w.w_activation_bytes, w.activation_bytes);
  c.f_workspace_bytes = w.f_workspace_bytes;
  c.b_workspace_bytes = w.b_workspace_bytes;
  return c;
}

}  // namespace pipeplan
