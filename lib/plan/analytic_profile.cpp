#include "plan/analytic_profile.hpp"

#include <algorithm>

#include "io/profile_json.hpp"
#include "model/error.hpp"

namespace pipeplan {

namespace {

double ms_for_flops(double flops, const GpuSpec& gpu, const Efficiency& e, DType dtype) {
  return flops / (gpu.peak_flops(dtype) * e.gemm) * 1e3;
}

double ms_for_bytes(double bytes, double gb_per_s, double efficiency) {
  return bytes / (gb_per_s * 1e9 * efficiency) * 1e3;
}

double ms_for_collectives(int count, double bytes, const LinkSpec& link) {
  return count == 0 ? 0.0 : count * (link.latency_ms + bytes / (link.bandwidth_gb_per_s * 1e9) * 1e3);
}

// The link a group of `span` consecutive GPUs talks over: one node's, or the network's.
const LinkSpec& link_for(int span, const GpuSpec& gpu, int gpus_per_node) {
  return span <= gpus_per_node ? gpu.intra_node : gpu.inter_node;
}

}  // namespace

int static_bytes_per_parameter(DType dtype) { return dtype == DType::FP32 ? 16 : 18; }

double static_bytes_per_parameter(DType dtype, Sharding sharding, int data_parallel) {
  const double d = data_parallel;
  const double weight = element_bytes(dtype);
  const double gradient = 4;
  const double states = dtype == DType::FP32 ? 8 : 12;
  switch (sharding) {
    case Sharding::None: return weight + gradient + states;
    case Sharding::Optimizer: return weight + gradient + states / d;
    case Sharding::Gradients: return weight + (gradient + states) / d;
  }
  return weight + gradient + states;
}

StageCost piece_cost(const PieceWork& w, const GpuSpec& gpu, const Efficiency& e, const TrainingSettings& tr) {
  return piece_cost(w, PhaseGemms{}, gpu, e, tr);
}

StageCost piece_cost(const PieceWork& w, const PhaseGemms& gemms, const GpuSpec& gpu, const Efficiency& e,
                     const TrainingSettings& tr) {
  // The listed products at their shapes' speed; whatever FLOPs of the phase they do not cover
  // (the attention core, a piece without a list) at the large-product rate.
  const auto flops_ms = [&](double flops, const std::vector<GemmShape>& products) {
    double ms = 0;
    for (const GemmShape& g : products) {
      ms += gemm_ms(g, gpu, e, tr.dtype);
      flops -= g.flops();
    }
    return ms + ms_for_flops(std::max(flops, 0.0), gpu, e, tr.dtype);
  };
  StageCost c;
  const LinkSpec& tp_link = gpu.intra_node;  // tensor parallelism stays inside a node
  c.f_ms = flops_ms(w.f_flops, gemms.f) + ms_for_bytes(w.f_bytes, gpu.memory_gb_per_s, e.memory) +
           ms_for_collectives(w.f_collectives, w.tp_bytes, tp_link);
  c.b_ms = flops_ms(w.b_flops, gemms.b) + ms_for_bytes(w.b_bytes, gpu.memory_gb_per_s, e.memory) +
           ms_for_collectives(w.b_collectives, w.tp_bytes, tp_link);
  c.w_ms = flops_ms(w.w_flops, gemms.w) + ms_for_bytes(w.w_bytes, gpu.memory_gb_per_s, e.memory);
  c.activation_bytes = w.activation_bytes;
  // The gradients B computes at the linear layers' outputs take the place of activations it
  // frees; the memory model holds a_W within a_F (docs/costs.md).
  c.w_activation_bytes = std::min(w.w_activation_bytes, w.activation_bytes);
  return c;
}

std::vector<PieceWork> stage_work(const ModelConfig& model, const TrainingSettings& training, const Layout& layout) {
  const PieceWork layer = layer_work(model, training);
  const PieceWork embedding = embedding_work(model, training);
  const PieceWork head = head_work(model, training);
  std::vector<PieceWork> stages;
  for (const StagePieces& pieces : layout) {
    PieceWork w;
    if (pieces.embedding) w += embedding;
    for (int i = 0; i < pieces.layers; ++i) w += layer;
    if (pieces.head) w += head;
    stages.push_back(w);
  }
  return stages;
}

namespace {

// Each piece's F, B and W estimated alone, with its products' shapes: a stage's times are the
// sums of its pieces' (a product's speed depends on its own shape, not on its neighbours').
MeasuredPieces estimated_pieces(const ModelConfig& model, const TrainingSettings& tr, const GpuSpec& gpu,
                                const Efficiency& e) {
  return {piece_cost(layer_work(model, tr), layer_linear_gemms(model, tr), gpu, e, tr),
          piece_cost(head_work(model, tr), head_linear_gemms(model, tr), gpu, e, tr),
          piece_cost(embedding_work(model, tr), gpu, e, tr)};
}

}  // namespace

PieceTotals piece_totals(const ModelConfig& model, const TrainingSettings& tr, const GpuSpec& gpu,
                         const Efficiency& e, const MeasuredPieces* measured) {
  const auto total = [](const StageCost& c) { return c.f_ms + c.b_ms + c.w_ms; };
  const MeasuredPieces pieces = measured != nullptr ? *measured : estimated_pieces(model, tr, gpu, e);
  return {total(pieces.embedding), total(pieces.layer), total(pieces.head)};
}

AnalyticProfile analytic_profile(const ModelConfig& model, const TrainingSettings& tr, const GpuSpec& gpu,
                                 const Efficiency& e, const Layout& layout, const Deployment& where,
                                 const MeasuredPieces* measured) {
  if (where.placement.size() != layout.size()) {
    throw Error("the placement names " + std::to_string(where.placement.size()) + " stages, the layout has " +
                std::to_string(layout.size()));
  }
  AnalyticProfile out;
  const std::vector<PieceWork> work = stage_work(model, tr, layout);
  const MeasuredPieces estimated = measured == nullptr ? estimated_pieces(model, tr, gpu, e) : MeasuredPieces{};
  const MeasuredPieces& times = measured != nullptr ? *measured : estimated;
  std::vector<std::int64_t> device_params(static_cast<std::size_t>(where.devices), 0);
  for (std::size_t s = 0; s < work.size(); ++s) {
    // Memory from the stage's work; times the sums of its pieces', estimated or measured.
    out.costs.stages.push_back(piece_cost(work[s], gpu, e, tr));
    StageCost& c = out.costs.stages.back();
    const StagePieces& p = layout[s];
    const auto sum = [&](double StageCost::*field) {
      return p.layers * (times.layer.*field) + (p.embedding ? times.embedding.*field : 0.0) +
             (p.head ? times.head.*field : 0.0);
    };
    c.f_ms = sum(&StageCost::f_ms);
    c.b_ms = sum(&StageCost::b_ms);
    c.w_ms = sum(&StageCost::w_ms);
    out.model_flops_per_microbatch += work[s].model_flops() * tr.tp;
    const int device = where.placement[s];
    if (device < 0 || device >= where.devices) throw Error("the placement names a device out of range");
    device_params[static_cast<std::size_t>(device)] += work[s].params;
  }
  // Gradients are reduced in fp32 over the data-parallel replicas, which sit a whole pipeline
  // (and its tensor parallelism) apart: over the network once they leave a node. A ring moves
  // (d-1)/d of the data through each rank per reduce-scatter or all-gather, twice that for an
  // all-reduce (which is the two in turn).
  const int job_span = where.devices * tr.tp * where.data_parallel;
  const LinkSpec& dp_link = link_for(job_span, gpu, where.gpus_per_node);
  const double dp = where.data_parallel;
  const double ring = (dp - 1) / dp;
  const Sharding sharding = where.data_parallel > 1 ? tr.sharding : Sharding::None;
  const double weight_bytes = element_bytes(tr.dtype);
  if (sharding == Sharding::Gradients) {
    // Each W reduce-scatters the gradients it made before the next micro-batch adds to them;
    // counted in W's time, not overlapped (an upper bound; under full recompute W is in B).
    for (std::size_t s = 0; s < work.size(); ++s) {
      StageCost& c = out.costs.stages[s];
      const double ms = ms_for_collectives(1, ring * double(work[s].params) * 4, dp_link);
      (tr.recompute == Recompute::Full ? c.b_ms : c.w_ms) += ms;
    }
  }
  for (std::int64_t params : device_params) {
    DeviceCost d;
    const double per_parameter = static_bytes_per_parameter(tr.dtype, sharding, where.data_parallel);
    d.static_memory_bytes = static_cast<Bytes>(double(params) * per_parameter + 0.5);
    // Adam reads the gradient, master weight and both moments and writes all but the gradient
    // back, plus the 16-bit weight copy: 28 bytes a parameter in fp32, 30 with 16-bit weights;
    // sharded, each replica steps its 1/d of them.
    const double shard = sharding == Sharding::None ? 1.0 : dp;
    const double adam_bytes = double(params) * (tr.dtype == DType::FP32 ? 28 : 30) / shard;
    d.optimizer_ms = ms_for_bytes(adam_bytes, gpu.memory_gb_per_s, e.memory);
    if (where.data_parallel > 1) {
      const double p = double(params);
      switch (sharding) {
        case Sharding::None: d.optimizer_ms += ms_for_collectives(1, 2 * ring * p * 4, dp_link); break;
        case Sharding::Optimizer:  // reduce-scatter the gradients, all-gather the stepped weights
          d.optimizer_ms += ms_for_collectives(1, ring * p * 4, dp_link) + ms_for_collectives(1, ring * p * weight_bytes, dp_link);
          break;
        case Sharding::Gradients: d.optimizer_ms += ms_for_collectives(1, ring * p * weight_bytes, dp_link); break;
      }
    }
    out.costs.devices.push_back(d);
  }
  // One micro-batch's hidden state, split over the tensor-parallel ranks (sequence parallelism).
  const LinkSpec& pp_link = link_for(where.devices * tr.tp, gpu, where.gpus_per_node);
  out.costs.transfer.latency_ms = pp_link.latency_ms;
  out.costs.transfer.bandwidth_gb_per_s = pp_link.bandwidth_gb_per_s;
  out.costs.transfer.bytes = static_cast<Bytes>(std::int64_t{tr.seq} * tr.micro_batch * model.hidden *
                                                element_bytes(tr.dtype) / tr.tp);
  return out;
}

Json analytic_profile_to_json(const CostModel& costs, const std::string& name, const std::string& source) {
  Json body = profile_to_json(costs);
  Json out;
  for (const char* key : {"format", "schema_version", "tool"}) {
    if (body.contains(key)) out[key] = body[key];
  }
  out["name"] = name;
  out["source"] = source;
  for (auto& [key, value] : body.items()) {
    if (!out.contains(key)) out[key] = value;
  }
  return out;
}

}  // namespace pipeplan
