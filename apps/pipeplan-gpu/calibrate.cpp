#include "calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "calibrate/card_match.hpp"
#include "calibrate/message_size.hpp"
#include "calibrate_links.hpp"
#include "calibrate_pieces.hpp"
#include "calibrate_report.hpp"
#include "estimate/analytic_profile.hpp"
#include "estimate/layout.hpp"
#include "gpu_error.hpp"
#include "gpu_info.hpp"
#include "io/analytic_profile_json.hpp"
#include "io/model_config_json.hpp"
#include "model/error.hpp"
#include "model/placement.hpp"

namespace pipeplan::gpu {

namespace {

// How long the card runs GEMMs before anything is timed, to leave its idle clocks.
constexpr double kWarmUpSeconds = 0.5;

// The biggest of a layer's products: what warms the card.
const Gemm& biggest(const std::vector<Gemm>& gemms) {
  return *std::max_element(gemms.begin(), gemms.end(),
                           [](const Gemm& a, const Gemm& b) { return a.flops() < b.flops(); });
}

// Stage s's cost: its layers' and, on the ends, the embedding's and the head's.
void set_stage_costs(AnalyticProfile& profile, const Layout& layout, const PieceMeasurements& p) {
  for (std::size_t s = 0; s < layout.size(); ++s) {
    StageCost& cost = profile.costs.stages[s];
    const double n = layout[s].layers;
    const auto sum = [&](double PieceTimes::*phase) {
      return n * p.layer.*phase + (layout[s].embedding ? p.embedding.*phase : 0) + (layout[s].head ? p.head.*phase : 0);
    };
    cost.f_ms = sum(&PieceTimes::f);
    cost.b_ms = sum(&PieceTimes::b);
    cost.w_ms = sum(&PieceTimes::w);
  }
}

}  // namespace

Calibration calibrate(const CalibrateRequest& r) {
  const TrainingSettings& tr = r.training;
  const ModelConfig& m = r.model;
  // The inputs first, so that a bad one is reported as such on a machine without a GPU too.
  (void)layer_gemms(m, tr);
  if (!r.layout.empty()) (void)parse_layout(r.layout, m.layers, "--layout", m.mtp_layers);
  const Inventory inv = inventory();
  if (r.device < 0 || r.device >= static_cast<int>(inv.devices.size())) {
    throw Error("--device " + std::to_string(r.device) + ": this machine has " + std::to_string(inv.devices.size()) +
                " devices");
  }
  const DeviceInfo& dev = inv.devices[static_cast<std::size_t>(r.device)];
  const CardMatch card = match_card(dev.name, dev.memory_bytes, r.gpu_name);
  PIPEPLAN_CUDA(cudaSetDevice(r.device));
  PieceRunner runner(m, tr);
  runner.timer().warm_up(biggest(runner.layer_products()), kWarmUpSeconds);
  Json clocks_start = clocks_json(r.device);
  const PieceMeasurements pieces =
      measure_pieces(runner, r.plan, card.spec != nullptr ? card.spec->peak_flops(tr.dtype) : 0.0);
  Json clocks_end = clocks_json(r.device);

  // The profile: the layout balanced by the measured costs (or given), memory from the
  // analytic model, times measured.
  const Layout layout = r.layout.empty() ? balanced_layout(r.stages, m.layers, pieces.embedding.total(),
                                                           pieces.layer.total(), pieces.head.total())
                                         : parse_layout(r.layout, m.layers, "--layout", m.mtp_layers);
  const auto stages = static_cast<int>(layout.size());
  const GpuSpec& spec = card.spec != nullptr ? *card.spec : gpu_named("h100");
  AnalyticProfile profile =
      analytic_profile(m, tr, spec, {}, layout, {loop_placement(stages, 1), stages, 1, spec.placement_domain()});
  set_stage_costs(profile, layout, pieces);
  const Bytes bytes = activation_message_bytes(m, tr);
  const TransferMeasurement transfer =
      measure_transfer(r.transfers, static_cast<int>(inv.devices.size()), r.plan, bytes);
  if (transfer.ms) profile.costs.transfer = TransferCost{*transfer.ms, 0, 0, 0};
  // The transfer is this machine's, measured or left out: the analytic estimate's per-boundary
  // links (a layout of more stages than a node's GPUs) would override the measurement, or stand in
  // for it unmeasured, so the calibrated profile keeps one transfer, as it did before boundaries.
  profile.costs.boundaries.clear();

  const std::string entry = card.spec != nullptr ? std::string(card.spec->name) : "none";
  const std::string name = fmt::format("{} on {} ({}), {}, seq {}, micro-batch {}, tp {}; layout {}", m.name, dev.name,
                                       card.spec != nullptr ? entry : "not in the table", dtype_name(tr.dtype), tr.seq,
                                       tr.micro_batch, tr.tp, layout_string(layout));
  Json doc = analytic_profile_to_json(profile.costs, name,
                                      "pipeplan-gpu calibrate: F, B, W measured (medians); memory from the analytic "
                                      "model (docs/costs.md)");
  if (transfer.ms) {
    doc["transfer_measured"] = {{"bytes", bytes},
                                {"ms", *transfer.ms},
                                {"from",
                                 "the measured tables of the one-way adjacent links, interpolated at the "
                                 "activation's size, averaged over the links"}};
  } else {
    doc.erase("transfer");
    doc["transfer_not_measured"] = transfer.not_measured;
  }
  doc["context"] = context_json(inv, dev, card.note.empty() ? entry : entry + " (" + card.note + ")", r.plan,
                                std::move(clocks_start), std::move(clocks_end));
  // What replay needs to run the same kernels: the shapes, the settings and the layout.
  doc["calibration"] = {{"model", model_config_to_json(m)}, {"seq", tr.seq}, {"micro_batch", tr.micro_batch},
                        {"dtype", dtype_name(tr.dtype)},    {"tp", tr.tp},   {"flash_attention", tr.flash_attention},
                        {"layout", layout_string(layout)}};
  doc["measurements"] = pieces.measurements;
  if (!transfer.links.empty()) doc["links"] = transfer.links;
  std::string report = calibrate_report(name, pieces, transfer, bytes);
  return {std::move(doc), std::move(report)};
}

}  // namespace pipeplan::gpu
