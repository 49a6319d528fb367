#include "estimate/analytic_profile.hpp"

#include <algorithm>
#include <utility>

#include "estimate/activation_offload.hpp"
#include "estimate/collective_contention.hpp"
#include "estimate/collective_link.hpp"
#include "estimate/data_parallel_replicas.hpp"
#include "estimate/fp8_recipe.hpp"
#include "estimate/fsdp.hpp"
#include "estimate/gradient_buckets.hpp"
#include "estimate/layer_kinds.hpp"
#include "estimate/moe_work.hpp"
#include "estimate/recompute_block.hpp"
#include "model/error.hpp"

namespace pipeplan {

namespace {

// DualPipe runs each forward beside the backward of the device's other stage, one's
// all-to-alls under the other's compute (moe_work.hpp): every stage's FB op, when each device
// holds two stages (the V) and the model has all-to-alls to hide. Megatron-Core's overlap
// (TrainingSettings::moe_a2a_overlap) pairs a backward with the device's next forward,
// of whichever of its stages; the pair is timed as the stage's forward beside its own backward,
// the device's stages being alike in a balanced layout.
void overlap_all_to_alls(CostModel& costs, const std::vector<PieceWork>& work, const GroupLinks& links,
                         const Deployment& where, const TrainingSettings& tr, const GpuSpec& gpu) {
  const double share = gpu.sms > 0 ? std::min(1.0, double(tr.moe_comm_sms) / gpu.sms) : 0.0;
  if (tr.moe_a2a_overlap) {
    for (std::size_t s = 0; s < work.size(); ++s) {
      const AllToAllMs a2a = all_to_all_ms(work[s], links.experts, &links.expert_tensor, links.expert_domains);
      costs.stages[s].f_and_b_ms = overlapped_f_and_b_ms(costs.stages[s], a2a, costs.stages[s], a2a, share);
    }
    return;
  }
  std::vector<std::vector<std::size_t>> held(static_cast<std::size_t>(where.devices));
  for (std::size_t s = 0; s < work.size(); ++s) held[static_cast<std::size_t>(where.placement[s])].push_back(s);
  for (const std::vector<std::size_t>& stages : held) {
    if (stages.size() != 2) return;
  }
  for (const std::vector<std::size_t>& stages : held) {
    for (int i = 0; i < 2; ++i) {
      const std::size_t f = stages[std::size_t(i)], b = stages[std::size_t(1 - i)];
      costs.stages[f].f_and_b_ms = overlapped_f_and_b_ms(
          costs.stages[f], all_to_all_ms(work[f], links.experts, &links.expert_tensor, links.expert_domains),
          costs.stages[b], all_to_all_ms(work[b], links.experts, &links.expert_tensor, links.expert_domains), share);
    }
  }
}

}  // namespace

namespace {

// Each kind of layer's work, with what FP8 saves (LayerKinds::kinds' order).
std::vector<PieceWork> kind_work(const ModelConfig& model, const TrainingSettings& training, const LayerKinds& kinds) {
  std::vector<PieceWork> layers;
  for (const LayerKind& k : kinds.kinds) {
    layers.push_back(layer_work(model, training, k));
    apply_fp8_memory(layers.back(), layer_linear_gemms(model, training, k), training);  // FP8's saved tensors
  }
  return layers;
}

}  // namespace

std::vector<PieceWork> stage_work(const ModelConfig& model, const TrainingSettings& training, const Layout& layout) {
  const LayerKinds kinds = layer_kinds(model);
  const std::vector<PieceWork> layers = kind_work(model, training, kinds);
  // Past full recompute's block a stage's layers keep their activations (training.hpp).
  const std::vector<PieceWork> kept =
      training.recompute_layers > 0 ? kind_work(model, past_block_settings(training), kinds) : layers;
  const PieceWork embedding = embedding_work(model, training);
  const PieceWork head = head_work(model, training);
  std::vector<PieceWork> stages;
  std::size_t next = 0;  // the first layer of the stage
  for (const StagePieces& pieces : layout) {
    PieceWork w;
    if (pieces.embedding) w += embedding;
    for (int i = 0; i < pieces.layers; ++i, ++next) {
      if (next >= kinds.of_layer.size() && !kinds.uniform()) throw Error("the layout holds more layers than the model");
      const std::vector<PieceWork>& of = past_recompute_block(training, i) ? kept : layers;
      w += kinds.uniform() ? of.front() : of[std::size_t(kinds.of_layer[next])];
    }
    if (pieces.head) w += head;
    stages.push_back(w);
  }
  return stages;
}

namespace {

// Each piece's F, B and W, estimated alone with its products' shapes (a product's speed depends
// on its own shape, not on its neighbours'), or measured: one cost per kind of layer.
struct PieceTimes {
  StageCost embedding, head;
  std::vector<StageCost> kinds;  ///< by LayerKinds::kinds
  LayerKinds layers;
  std::vector<TimeParts> kind_parts;  ///< the kinds' F + B + W line by line; empty when measured
  /// The kinds past full recompute's block (recompute none), as `kinds` and `kind_parts`; empty
  /// without a block (TrainingSettings::recompute_layers).
  std::vector<StageCost> kept_kinds;
  std::vector<TimeParts> kept_kind_parts;
  int block = 0;  ///< TrainingSettings::recompute_layers under full recompute, else 0

  [[nodiscard]] bool kept(int in_stage) const { return block > 0 && in_stage >= block; }
  /// Model layer i, the stage's in_stage-th.
  [[nodiscard]] const StageCost& layer(std::size_t i, int in_stage = 0) const {
    return of(kept(in_stage) ? kept_kinds : kinds, i);
  }
  [[nodiscard]] const TimeParts& parts(std::size_t i, int in_stage) const {
    return of(kept(in_stage) ? kept_kind_parts : kind_parts, i);
  }

 private:
  template <class T>
  [[nodiscard]] const T& of(const std::vector<T>& by_kind, std::size_t i) const {
    return layers.uniform() ? by_kind.front() : by_kind[std::size_t(layers.of_layer[i])];
  }
};

void add_kind_times(std::vector<StageCost>& costs, std::vector<TimeParts>& parts, const ModelConfig& model,
                    const TrainingSettings& tr, const LayerKinds& layers, const GpuSpec& gpu, const Efficiency& e,
                    const GroupLinks* links) {
  for (const LayerKind& k : layers.kinds) {
    PieceWork layer = layer_work(model, tr, k);
    PhaseGemms gemms = layer_linear_gemms(model, tr, k);
    apply_fp8(layer, gemms, tr, gpu);  // the layer's linear products in FP8 under --dtype fp8
    costs.push_back(piece_cost(layer, gemms, gpu, e, tr, links));
    parts.push_back(piece_parts(layer, gemms, gpu, e, tr, links).all());
  }
}

PieceTimes piece_times(const ModelConfig& model, const TrainingSettings& tr, const GpuSpec& gpu, const Efficiency& e,
                       const MeasuredPieces* measured, const GroupLinks* links) {
  PieceTimes t;
  t.layers = layer_kinds(model);
  if (measured != nullptr) {
    if (!t.layers.uniform()) {
      throw Error("measured piece times describe one kind of layer, and " + model.name +
                  "'s layers differ (dense and expert MLPs, or local and full attention): calibrate each kind, or "
                  "plan without --calibration");
    }
    if (tr.recompute == Recompute::Full && tr.recompute_layers > 0) {
      throw Error("--recompute-layers " + std::to_string(tr.recompute_layers) +
                  ": a calibration measures one layer's F, B and W, and full recompute's block needs a recomputed "
                  "and a kept layer's; plan without --calibration, or recompute every layer");
    }
    t.embedding = measured->embedding;
    t.head = measured->head;
    t.kinds = {measured->layer};
    return t;
  }
  add_kind_times(t.kinds, t.kind_parts, model, tr, t.layers, gpu, e, links);
  if (tr.recompute == Recompute::Full && tr.recompute_layers > 0) {
    t.block = tr.recompute_layers;
    add_kind_times(t.kept_kinds, t.kept_kind_parts, model, past_block_settings(tr), t.layers, gpu, e, links);
  }
  t.head = piece_cost(head_work(model, tr), head_linear_gemms(model, tr), gpu, e, tr, links);
  t.embedding = piece_cost(embedding_work(model, tr), gpu, e, tr, links);
  return t;
}

// One transfer of a micro-batch's hidden state, a context-parallel rank's tokens split over the
// tensor-parallel ranks (sequence parallelism), over `link`.
TransferCost transfer_over(const LinkSpec& link, const ModelConfig& model, const TrainingSettings& tr) {
  TransferCost t;
  t.latency_ms = link.latency_ms;
  t.bandwidth_gb_per_s = link.bandwidth_gb_per_s * link.send_efficiency;
  t.bytes = static_cast<Bytes>(context_tokens(tr) * model.hidden * element_bytes(tr.dtype) / tr.tp);
  return t;
}

// FSDP without pipeline parallelism: every micro-batch each unit (a layer, the embedding, the
// head) gathers its weights before F and B and reduce-scatters its gradients after, what
// outlasts the neighbouring unit's compute added to the unit's F and B (fsdp.hpp), with what the
// rest takes from the compute it hides under (collective_contention.hpp), and FSDP2's copies on
// the compute stream (`copies`: F's copy-out, B's copy-out and copy-in).
void add_fsdp_unit_exposure(StageCost& c, const FsdpUnitMs& unit, const FsdpExposedMs& copies, const GpuSpec& gpu) {
  const FsdpExposedMs x = fsdp_exposed_per_unit(unit, c.f_ms, c.b_ms, c.w_ms);
  c.f_ms += x.f_ms + hidden_collective_ms(unit.gather_ms, x.f_ms, gpu) + copies.f_ms;
  c.b_ms += x.b_ms + hidden_collective_ms(unit.gather_ms + unit.reduce_ms, x.b_ms, gpu) + copies.b_ms;
}

FsdpUnitMs operator+(const FsdpUnitMs& a, const FsdpUnitMs& b) {
  return {a.gather_ms + b.gather_ms, a.reduce_ms + b.reduce_ms};
}

// Activation offloading (activation_offload.hpp) on the one stage it allows: its first N layers'
// activations leave the card, and what of their copies the compute does not hide joins its F
// and B, the breakdown's offload line.
void offload_activations(StageCost& c, TimeParts& parts, const PieceTimes& times, const ModelConfig& model,
                         const TrainingSettings& tr, const GpuSpec& gpu) {
  if (gpu.host_link.bandwidth_gb_per_s <= 0) {
    throw Error("--offload-layers " + std::to_string(tr.offload_layers) + ": " + std::string(gpu.name) +
                " has no host link in the GPU table to offload over");
  }
  const std::vector<PieceWork> kinds = kind_work(model, tr, times.layers);
  std::vector<OffloadedLayer> layers;
  double freed = 0;
  for (std::size_t i = 0; i < times.layers.of_layer.size(); ++i) {
    const StageCost& t = times.layer(i);
    const auto bytes = double(kinds[std::size_t(times.layers.of_layer[i])].activation_bytes);
    layers.push_back({t.f_ms, t.b_ms + t.w_ms, bytes});
    if (int(i) < tr.offload_layers) freed += bytes;
  }
  const OffloadStallMs stall = offload_stall_ms(layers, tr.offload_layers, gpu.host_link.bandwidth_gb_per_s);
  c.f_ms += stall.forward;
  c.b_ms += stall.backward;
  parts.offload += stall.forward + stall.backward;
  c.activation_bytes -= static_cast<Bytes>(freed + 0.5);
  c.w_activation_bytes = std::min(c.w_activation_bytes, c.activation_bytes);
}

}  // namespace

PieceTotals piece_totals(const ModelConfig& model, const TrainingSettings& tr, const GpuSpec& gpu, const Efficiency& e,
                         const MeasuredPieces* measured, const GroupLinks* links) {
  const auto total = [](const StageCost& c) { return c.f_ms + c.b_ms + c.w_ms; };
  const PieceTimes pieces = piece_times(model, tr, gpu, e, measured, links);
  PieceTotals out{total(pieces.embedding), total(pieces.head), {}};
  out.layers.reserve(pieces.layers.of_layer.size());
  for (std::size_t i = 0; i < pieces.layers.of_layer.size(); ++i) out.layers.push_back(total(pieces.layer(i)));
  return out;
}

double PieceTotals::all() const {
  double sum = embedding + head;
  for (double l : layers) sum += l;
  return sum;
}

AnalyticProfile analytic_profile(const ModelConfig& model, const TrainingSettings& tr, const GpuSpec& gpu,
                                 const Efficiency& e, const Layout& layout, const Deployment& where,
                                 const MeasuredPieces* measured) {
  if (where.placement.size() != layout.size()) {
    throw Error("the placement names " + std::to_string(where.placement.size()) + " stages, the layout has " +
                std::to_string(layout.size()));
  }
  check_activation_offload(tr, model.layers, int(layout.size()));
  check_recompute_block(tr);
  AnalyticProfile out;
  out.breakdown.measured = measured != nullptr;
  const std::vector<PieceWork> work = stage_work(model, tr, layout);
  check_expert_folding(model, tr, where.data_parallel);
  // Where the ranks sit decides every group's link (rank_placement.hpp).
  const RankGrid grid{tr.tp, where.devices, where.data_parallel, tr.ep, where.gpus_per_node, where.order,
                      tr.cp, tr.etp};
  const GroupLinks links = group_links(gpu, grid);
  // Gradients are reduced in fp32 over the data-parallel ranks of each pipeline device, dp·cp of
  // them (context-parallel ranks hold the same weights: Megatron's data-parallel group with
  // context parallelism), the experts' over the edp ranks holding the same experts: over the
  // network when the rank order spreads such a group over nodes, on as many cards as a node holds
  // members (collective_link.hpp). A ring moves (d-1)/d of the data through each rank per
  // reduce-scatter or all-gather, twice that for an all-reduce.
  const LinkSpec dp_link = collective_link(gpu, grid, RankGroup::DataContext);
  const LinkSpec expert_dp_link = collective_link(gpu, grid, RankGroup::ExpertData);
  const bool pipelined = where.devices > 1;
  const Replicas dense{where.data_parallel * tr.cp, tr.sharding, pipelined, gradient_bytes(tr)};
  const Replicas experts{grid.expert_dp(), tr.sharding, pipelined, gradient_bytes(tr)};
  const auto unit_ms = [&](const PieceWork& w) {
    return fsdp_unit_ms(double(w.params - w.expert_params), tr.dtype, dense.count, dp_link, gradient_bytes(tr)) +
           fsdp_unit_ms(double(w.expert_params), tr.dtype, experts.count, expert_dp_link, gradient_bytes(tr));
  };
  // FSDP2's copy-out after each gather and copy-in before each reduce-scatter (fsdp.hpp), at the
  // element-wise kernels' memory efficiency: F gathers once, B again (reshard after forward)
  // and reduce-scatters. Megatron-FSDP's parameters and gradients are views of its buckets: none.
  const auto copy_ms = [&](const PieceWork& w) {
    if (tr.fsdp_impl != FsdpImpl::Fsdp2) return FsdpExposedMs{};
    const FsdpCopyBytes d =
        fsdp_copy_bytes(double(w.params - w.expert_params), tr.dtype, dense.count, gradient_bytes(tr));
    const FsdpCopyBytes x = fsdp_copy_bytes(double(w.expert_params), tr.dtype, experts.count, gradient_bytes(tr));
    const double copy_out = ms_for_bytes(d.gather_copy_out + x.gather_copy_out, gpu.memory_gb_per_s, e.memory);
    const double copy_in = ms_for_bytes(d.reduce_copy_in + x.reduce_copy_in, gpu.memory_gb_per_s, e.memory);
    return FsdpExposedMs{copy_out, copy_out + copy_in};
  };
  const bool fsdp_units = dense.sharding() == Sharding::Params && !pipelined;
  check_fp8_params(tr, dense.sharding(), dense.count);
  PieceTimes times = piece_times(model, tr, gpu, e, measured, &links);
  if (fsdp_units) {
    const auto expose = [&](std::vector<StageCost>& kinds, std::vector<TimeParts>& parts) {
      for (std::size_t k = 0; k < kinds.size(); ++k) {
        const double before = kinds[k].f_ms + kinds[k].b_ms;
        const PieceWork w = layer_work(model, tr, times.layers.kinds[k]);
        add_fsdp_unit_exposure(kinds[k], unit_ms(w), copy_ms(w), gpu);
        if (k < parts.size()) parts[k].sharding_comm += kinds[k].f_ms + kinds[k].b_ms - before;
      }
    };
    expose(times.kinds, times.kind_parts);
    expose(times.kept_kinds, times.kept_kind_parts);
    add_fsdp_unit_exposure(times.embedding, unit_ms(embedding_work(model, tr)), copy_ms(embedding_work(model, tr)),
                           gpu);
    add_fsdp_unit_exposure(times.head, unit_ms(head_work(model, tr)), copy_ms(head_work(model, tr)), gpu);
  }
  // Routed experts' weights are replicated over edp ranks only (the ep ranks of an
  // expert-parallel group hold different experts): their gradients are reduced, and their
  // optimizer states sharded, over those; every other weight over all dp·cp ranks.
  std::vector<std::int64_t> device_params(static_cast<std::size_t>(where.devices), 0);
  std::vector<std::int64_t> device_expert_params(device_params.size(), 0);
  std::size_t next_layer = 0;
  // FP8 training's weight copies: per layer, the linear weights its recipe quantises.
  std::vector<double> fp8_kind_weights;
  for (const LayerKind& k : times.layers.kinds) {
    fp8_kind_weights.push_back(tr.fp8 ? fp8_weight_elements(layer_linear_gemms(model, tr, k)) : 0.0);
  }
  std::vector<double> device_fp8_weights(device_params.size(), 0.0);
  // Each stage's pieces as Megatron-Core's gradient buckets see them (gradient_buckets.hpp).
  // Only where replicas keep weights equal by Megatron-Core's buffers (FSDP has its units).
  const bool bucketing = dense.sharding() != Sharding::Params && (dense.count > 1 || experts.count > 1);
  const std::vector<PieceWork> kind_params = bucketing ? kind_work(model, tr, times.layers) : std::vector<PieceWork>{};
  const auto piece = [](const PieceWork& w, const StageCost& t) {
    return BucketPiece{double(w.params - w.expert_params), double(w.expert_params), t.f_ms, t.b_ms + t.w_ms};
  };
  std::vector<BucketStage> bucket_stages(work.size());
  for (std::size_t s = 0; s < work.size(); ++s) {
    // Memory from the stage's work; times the sums of its pieces', estimated or measured.
    out.costs.stages.push_back(piece_cost(work[s], gpu, e, tr, &links));
    StageCost& c = out.costs.stages.back();
    const StagePieces& p = layout[s];
    const std::size_t first_layer = next_layer;
    next_layer += std::size_t(p.layers);
    const auto sum = [&](double StageCost::*field) {
      double ms = (p.embedding ? times.embedding.*field : 0.0) + (p.head ? times.head.*field : 0.0);
      if (times.layers.uniform() && times.block == 0) return ms + p.layers * (times.kinds.front().*field);
      for (std::size_t i = first_layer; i < next_layer; ++i) {
        ms += times.layer(i, int(i - first_layer)).*field;
      }
      return ms;
    };
    c.f_ms = sum(&StageCost::f_ms);
    c.b_ms = sum(&StageCost::b_ms);
    c.w_ms = sum(&StageCost::w_ms);
    // Megatron-Core buckets the first stage's gradients only (pipeline rank 0's first model chunk:
    // distributed_data_parallel.py and training.py at d98e8a64); every other stage is one bucket.
    BucketStage& buckets = bucket_stages[s];
    buckets.bucketed = s == 0;
    if (bucketing) {
      buckets.pieces.reserve(std::size_t(p.layers) + 2);
      if (p.embedding) buckets.pieces.push_back(piece(embedding_work(model, tr), times.embedding));
      for (std::size_t i = first_layer; i < next_layer && i < times.layers.of_layer.size(); ++i) {
        buckets.pieces.push_back(
            piece(kind_params[std::size_t(times.layers.of_layer[i])], times.layer(i, int(i - first_layer))));
      }
      if (p.head) buckets.pieces.push_back(piece(head_work(model, tr), times.head));
    }
    // Megatron-Core's pairs run a forward's layers beside a backward's one by one (fb_held_bytes):
    // each layer's share of the stage's activations.
    if (tr.moe_a2a_overlap && p.layers > 0) c.layer_activation_bytes = c.activation_bytes / p.layers;
    // The error budget's lines for the stage's layers; its embedding and head as one line.
    TimeParts parts;
    if (!times.kind_parts.empty()) {
      for (std::size_t i = first_layer; i < next_layer && i < times.layers.of_layer.size(); ++i) {
        parts += times.parts(i, int(i - first_layer));
      }
    }
    out.breakdown.stages.push_back(parts);
    out.breakdown.edge_ms.push_back(
        (p.embedding ? times.embedding.f_ms + times.embedding.b_ms + times.embedding.w_ms : 0.0) +
        (p.head ? times.head.f_ms + times.head.b_ms + times.head.w_ms : 0.0));
    out.model_flops_per_microbatch += work[s].model_flops() * tr.tp * tr.cp;
    const int device = where.placement[s];
    if (device < 0 || device >= where.devices) throw Error("the placement names a device out of range");
    device_params[static_cast<std::size_t>(device)] += work[s].params - work[s].expert_params;
    device_expert_params[static_cast<std::size_t>(device)] += work[s].expert_params;
    for (std::size_t i = first_layer; i < next_layer && i < times.layers.of_layer.size(); ++i) {
      device_fp8_weights[static_cast<std::size_t>(device)] += fp8_kind_weights[std::size_t(times.layers.of_layer[i])];
    }
  }
  if (tr.offload_layers > 0) {
    StageCost& front = out.costs.stages.front();
    offload_activations(front, out.breakdown.stages.front(), times, model, tr, gpu);
    front.layer_activation_bytes = std::min(front.layer_activation_bytes, front.activation_bytes);
  }
  if (tr.sharding == Sharding::Gradients) {
    // Each W reduce-scatters the gradients it made before the next micro-batch adds to them;
    // counted in W's time, not overlapped (an upper bound; under full recompute W is in B, but
    // for a block's kept layers, whose W stays W: the stage's scatter joins W then).
    const bool in_backward = weight_gradients_in_backward(tr.recompute) && times.block == 0;
    for (std::size_t s = 0; s < work.size(); ++s) {
      StageCost& c = out.costs.stages[s];
      double ms = dense.gradient_scatter_ms(double(work[s].params - work[s].expert_params), dp_link);
      if (work[s].expert_params > 0) ms += experts.gradient_scatter_ms(double(work[s].expert_params), expert_dp_link);
      (in_backward ? c.b_ms : c.w_ms) += ms;
      out.breakdown.stages[s].sharding_comm += ms;
    }
  }
  // One micro-batch's forward on each device (its stages' F): what FSDP's step gather hides under
  // beside pipeline parallelism.
  std::vector<double> forward_ms(device_params.size(), 0.0);
  for (std::size_t s = 0; s < out.costs.stages.size(); ++s) {
    forward_ms[static_cast<std::size_t>(where.placement[s])] += out.costs.stages[s].f_ms;
  }
  // FSDP alone: the two largest units in flight, gathered, beside the shards.
  double in_flight = 0;
  if (fsdp_units) {
    const auto params = [](const PieceWork& w) { return double(w.params); };
    double largest = std::max(params(embedding_work(model, tr)), params(head_work(model, tr)));
    for (const LayerKind& k : times.layers.kinds) largest = std::max(largest, params(layer_work(model, tr, k)));
    in_flight = fsdp_in_flight_bytes(largest, tr.dtype, gradient_bytes(tr));
  }
  for (std::size_t device = 0; device < device_params.size(); ++device) {
    DeviceCost d;
    double static_bytes = in_flight;
    // Adam's step on the rank's shard of each kind of weights, then the collectives that keep the
    // replicas equal, as much of them as the overlaps leave exposed.
    DataParallelMs c;
    const auto add = [&](const ReplicaStep& s) {
      static_bytes += s.static_bytes;
      d.optimizer_ms += ms_for_bytes(s.adam_bytes, gpu.memory_gb_per_s, e.memory);
      c.reduce_ms += s.collectives.reduce_ms;
      c.gather_ms += s.collectives.gather_ms;
    };
    add(dense.step(double(device_params[device]), tr.dtype, dp_link));
    if (device_expert_params[device] > 0)
      add(experts.step(double(device_expert_params[device]), tr.dtype, expert_dp_link));
    const double adam_ms = d.optimizer_ms;
    // What the step waits for, and what the rest takes from the compute it hides under.
    double exposed = 0, copies = 0;
    if (dense.sharding() == Sharding::Params) {
      exposed = fsdp_step_exposed_ms({c.gather_ms, c.reduce_ms}, forward_ms[device]);
      // Beside pipeline parallelism FSDP2 gathers and reduce-scatters once a step: its copies
      // once too (alone, each unit's F and B carry theirs).
      if (pipelined) {
        PieceWork weights;
        weights.params = device_params[device] + device_expert_params[device];
        weights.expert_params = device_expert_params[device];
        copies = copy_ms(weights).b_ms;
      }
    } else if (bucketing) {
      // Megatron-Core's buckets of the device's stages, in ascending order (each stage is one
      // device's: moved, not copied).
      std::vector<BucketStage> mine;
      for (std::size_t s = 0; s < bucket_stages.size(); ++s) {
        if (std::size_t(where.placement[s]) == device) mine.push_back(std::move(bucket_stages[s]));
      }
      // Dispatched at the step's start, the first gather runs while the device waits for the
      // stages before its first one to run one micro-batch's forward.
      double lead = 0;
      for (std::size_t s = 0; tr.param_gather_at_step_start && s < work.size(); ++s) {
        if (std::size_t(where.placement[s]) == device) break;
        lead += out.costs.stages[s].f_ms;
      }
      const BucketedCollectives b = bucketed_collectives(mine, bucket_params(tr, dense.count), {&dense, &dp_link},
                                                         {&experts, &expert_dp_link}, tr.dtype, tr, lead);
      exposed = b.reduce_exposed_ms + b.gather_exposed_ms;
      c = b.total;
    }
    d.optimizer_ms += exposed + hidden_collective_ms(c.reduce_ms + c.gather_ms, exposed, gpu) + copies;
    out.breakdown.data_parallel_ms.push_back(d.optimizer_ms - adam_ms);
    if (tr.fp8) {
      // The FP8 weight copies beside the BF16 weights, made once a step from the stepped weights.
      // Under FSDP without pipeline parallelism the weights are whole only for the two units in
      // flight: the copies are made of each rank's shard and gathered with it (torchao's FP8
      // all-gather), so a rank keeps its shard's and the units' in flight.
      double weights = device_fp8_weights[device];
      if (fsdp_units) {
        const double largest = *std::max_element(fp8_kind_weights.begin(), fp8_kind_weights.end());
        weights = weights / dense.count + 2 * largest;
      }
      static_bytes += weights * fp8_weight_copy_bytes(*tr.fp8, gpu.architecture);
      // --fp8-params: those copies are the linear weights, without their 16-bit copy (the
      // fp32 master stays with the optimizer's states).
      if (tr.fp8_params) static_bytes -= device_fp8_weights[device] * element_bytes(tr.dtype);
      d.optimizer_ms += ms_for_bytes(weights * fp8_cast_bytes(*tr.fp8, gpu.architecture, Fp8Operand::Weight),
                                     gpu.memory_gb_per_s, e.memory);
    }
    d.static_memory_bytes = static_cast<Bytes>(static_bytes + 0.5);
    out.breakdown.optimizer_ms.push_back(d.optimizer_ms - out.breakdown.data_parallel_ms.back());
    out.costs.devices.push_back(d);
  }
  // Once, with every stage's times final (W's reduce-scatters included).
  if (measured == nullptr) overlap_all_to_alls(out.costs, work, links, where, tr, gpu);
  // Each stage boundary's link: the network when any replica puts its two devices on different
  // nodes (the slowest replica sets the step), the node's otherwise, and the node's for two
  // stages on one device (no transfer crosses a link; the simulator moves nothing there).
  bool network = false, node = false;
  std::vector<bool> across(work.size() > 0 ? work.size() - 1 : 0);
  for (std::size_t s = 0; s < across.size(); ++s) {
    across[s] = pipeline_crosses_nodes(grid, where.placement[s], where.placement[s + 1]);
    (across[s] ? network : node) = true;
  }
  // Every boundary alike: one transfer, as profiles were before boundaries existed. Otherwise
  // one per boundary, and `transfer` the slowest, for readers that take one transfer time.
  out.costs.transfer = transfer_over(node_or_network_link(!network, gpu), model, tr);
  if (network && node) {
    for (bool a : across) out.costs.boundaries.push_back(transfer_over(node_or_network_link(!a, gpu), model, tr));
  }
  return out;
}

}  // namespace pipeplan
