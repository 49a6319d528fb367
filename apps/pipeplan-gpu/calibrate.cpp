#include "calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "calibrate/sample_stats.hpp"
#include "gpu_error.hpp"
#include "gpu_info.hpp"
#include "model/error.hpp"
#include "model/placement.hpp"
#include "nccl_links.hpp"
#include "piece_runner.hpp"
#include "plan/analytic_profile.hpp"
#include "plan/gpu_catalog.hpp"
#include "plan/layout.hpp"

namespace pipeplan::gpu {

namespace {

// The table's entry for a device name such as "NVIDIA H100 80GB HBM3", or nullptr.
const GpuSpec* match_card(const std::string& device_name, std::size_t memory, const std::string& asked) {
  if (!asked.empty()) return &gpu_named(asked);
  const auto has = [&](const char* part) { return device_name.find(part) != std::string::npos; };
  if (has("H200")) return &gpu_named("h200");
  if (has("H100")) return &gpu_named("h100");
  if (has("A100")) return &gpu_named(memory > (std::size_t{48} << 30) ? "a100-80gb" : "a100-40gb");
  if (has("3090")) return &gpu_named("rtx3090");
  if (has("4090")) return &gpu_named("rtx4090");
  return nullptr;
}

std::string phase_name(Phase p) { return p == Phase::F ? "F" : p == Phase::B ? "B" : "W"; }

Json stats_json(const SampleStats& s) {
  return {{"median_ms", s.median}, {"p10_ms", s.p10}, {"p90_ms", s.p90}, {"cv", s.cv}, {"count", s.count}};
}

struct PieceTimes {
  double f = 0, b = 0, w = 0;
  [[nodiscard]] double total() const { return f + b + w; }
  void add(Phase p, double ms) { (p == Phase::F ? f : p == Phase::B ? b : w) += ms; }
};

std::string iso_date() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

Calibration calibrate(const CalibrateRequest& r) {
  const Inventory inv = inventory();
  if (r.device < 0 || r.device >= static_cast<int>(inv.devices.size())) {
    throw Error("--device " + std::to_string(r.device) + ": this machine has " + std::to_string(inv.devices.size()) +
                " devices");
  }
  const DeviceInfo& dev = inv.devices[static_cast<std::size_t>(r.device)];
  const GpuSpec* card = match_card(dev.name, dev.memory_bytes, r.gpu_name);
  PIPEPLAN_CUDA(cudaSetDevice(r.device));
  const TrainingSettings& tr = r.training;
  const ModelConfig& m = r.model;
  PieceRunner runner(m, tr);
  GemmTimer& timer = runner.timer();
  Json measurements = Json::array();
  const double peak = card != nullptr ? card->peak_flops(tr.dtype) : 0.0;
  const auto record = [&](const std::string& piece, const std::string& name, Phase phase, const std::vector<double>& samples,
                           const Gemm* gemm, PieceTimes& into) {
    const SampleStats s = stats_of(samples);
    into.add(phase, s.median);
    Json j = {{"piece", piece}, {"name", name}, {"phase", phase_name(phase)}};
    j.update(stats_json(s));
    if (gemm != nullptr) {
      j["shape"] = {{"m", gemm->m}, {"n", gemm->n}, {"k", gemm->k}, {"batch", gemm->batch}};
      j["tflops"] = gemm->flops() / (s.median * 1e-3) / 1e12;
      if (peak > 0) j["peak_tflops"] = peak / 1e12;
    }
    measurements.push_back(std::move(j));
  };
  // One layer: its GEMMs, then its element-wise kernels.
  PieceTimes layer_ms;
  for (const Gemm& g : runner.layer_products()) record("layer", g.name, g.phase, timer.time_gemm(g, r.plan), &g, layer_ms);
  for (Phase p : {Phase::F, Phase::B}) {
    record("layer", "elementwise", p, timer.time([&] { runner.layer_elementwise(p); }, r.plan), nullptr, layer_ms);
  }
  // The head: its products and the loss's softmax over the logits, forward and backward.
  PieceTimes head_ms;
  for (const Gemm& g : runner.head_products()) record("head", g.name, g.phase, timer.time_gemm(g, r.plan), &g, head_ms);
  for (Phase p : {Phase::F, Phase::B}) record("head", "loss", p, timer.time([&] { runner.loss(); }, r.plan), nullptr, head_ms);
  // The embedding: a lookup of T rows forward, the gradient's scatter (timed as a lookup) in W.
  PieceTimes embedding_ms;
  for (Phase p : {Phase::F, Phase::W}) {
    record("embedding", p == Phase::F ? "lookup" : "gradient", p, timer.time([&] { runner.embedding(p); }, r.plan),
           nullptr, embedding_ms);
  }

  // The profile: the layout balanced by the measured costs (or given), memory from the
  // analytic model, times measured.
  const Layout layout = r.layout.empty()
                            ? balanced_layout(r.stages, m.layers, embedding_ms.total(), layer_ms.total(), head_ms.total())
                            : parse_layout(r.layout, m.layers, "--layout");
  const std::vector<int> placement = loop_placement(static_cast<int>(layout.size()), 1);
  const GpuSpec& spec = card != nullptr ? *card : gpu_named("h100");
  AnalyticProfile profile = analytic_profile(m, tr, spec, {}, layout, {placement, static_cast<int>(layout.size()), 1, spec.gpus_per_node});
  for (std::size_t s = 0; s < layout.size(); ++s) {
    StageCost& cost = profile.costs.stages[s];
    const double n = layout[s].layers;
    cost.f_ms = n * layer_ms.f + (layout[s].embedding ? embedding_ms.f : 0) + (layout[s].head ? head_ms.f : 0);
    cost.b_ms = n * layer_ms.b + (layout[s].embedding ? embedding_ms.b : 0) + (layout[s].head ? head_ms.b : 0);
    cost.w_ms = n * layer_ms.w + (layout[s].embedding ? embedding_ms.w : 0) + (layout[s].head ? head_ms.w : 0);
  }
  Json links = Json::array();
  bool transfer_measured = false;
  if (r.transfers && inv.devices.size() >= 2) {
    double latency = 0, bandwidth = 0;
    int one_way = 0;
    for (const LinkMeasurement& l : measure_links(static_cast<int>(inv.devices.size()), r.plan)) {
      Json table = Json::array();
      for (const TransferSample& sample : l.table) table.push_back({sample.bytes, sample.ms});
      links.push_back({{"from", l.from}, {"to", l.to}, {"both_directions", l.both_directions},
                       {"latency_ms", l.fit.latency_ms}, {"bandwidth_gb_per_s", l.fit.bandwidth_gb_per_s},
                       {"r_squared", l.fit.r_squared}, {"table", table}});
      if (!l.both_directions) {
        latency += l.fit.latency_ms;
        bandwidth += l.fit.bandwidth_gb_per_s;
        ++one_way;
      }
    }
    profile.costs.transfer.latency_ms = std::max(0.0, latency / one_way);
    profile.costs.transfer.bandwidth_gb_per_s = bandwidth / one_way;
    transfer_measured = true;
  }
  const std::string name = fmt::format("{} on {} ({}), {}, seq {}, micro-batch {}, tp {}; layout {}", m.name, dev.name,
                                       card != nullptr ? card->name : "not in the table", dtype_name(tr.dtype), tr.seq,
                                       tr.micro_batch, tr.tp, layout_string(layout));
  Json doc = analytic_profile_to_json(profile.costs, name,
                                      "pipeplan-gpu calibrate: F, B, W measured (medians); memory from the analytic "
                                      "model (docs/costs.md)");
  if (!transfer_measured) {
    doc.erase("transfer");
    doc["transfer_not_measured"] = inv.devices.size() < 2 ? "one GPU: no pair of devices to measure"
                                                         : "transfers were not asked for (--no-transfers)";
  }
  Json context = {{"card", dev.name},
                  {"table_entry", card != nullptr ? std::string(card->name) : std::string("none")},
                  {"driver_cuda", cuda_version_text(inv.driver)},
                  {"cuda_runtime", cuda_version_text(inv.runtime)},
                  {"cublas", cublas_version_text(inv.cublas_runtime)},
                  {"nccl", nccl_version_text(inv.nccl_runtime)},
                  {"sm_clock_peak_mhz", dev.clock_mhz},
                  {"memory_clock_peak_mhz", dev.memory_clock_mhz},
                  {"clocks_note", "peak clocks from the CUDA attributes at start and end; current clocks need NVML"},
                  {"date", iso_date()},
                  {"warmup", r.plan.warmup},
                  {"repetitions", r.plan.repetitions}};
  doc["context"] = context;
  // What replay needs to run the same kernels: the shapes, the settings and the layout.
  doc["calibration"] = {{"model", model_config_to_json(m)},
                        {"seq", tr.seq},
                        {"micro_batch", tr.micro_batch},
                        {"dtype", dtype_name(tr.dtype)},
                        {"tp", tr.tp},
                        {"flash_attention", tr.flash_attention},
                        {"layout", layout_string(layout)}};
  doc["measurements"] = measurements;
  if (!links.empty()) doc["links"] = links;

  std::string report = fmt::format("{}\n{:<10} {:<24} {:>5} {:>10} {:>10} {:>7} {:>9}\n", name, "piece", "work", "phase",
                                   "median ms", "p90 ms", "CV", "TFLOP/s");
  for (const Json& j : measurements) {
    report += fmt::format("{:<10} {:<24} {:>5} {:>10.4f} {:>10.4f} {:>7.3f} {:>9}\n", j["piece"].get<std::string>(),
                          j["name"].get<std::string>(), j["phase"].get<std::string>(), j["median_ms"].get<double>(),
                          j["p90_ms"].get<double>(), j["cv"].get<double>(),
                          j.contains("tflops") ? fmt::format("{:.1f}", j["tflops"].get<double>()) : std::string("-"));
  }
  report += fmt::format("layer F/B/W: {:.3f} / {:.3f} / {:.3f} ms; head {:.3f} / {:.3f} / {:.3f} ms\n", layer_ms.f,
                        layer_ms.b, layer_ms.w, head_ms.f, head_ms.b, head_ms.w);
  report += transfer_measured ? fmt::format("transfer: {:.4f} ms + bytes / {:.2f} GB/s (mean of the adjacent pairs)\n",
                                            profile.costs.transfer.latency_ms, profile.costs.transfer.bandwidth_gb_per_s)
                              : "transfer: not measured (" + doc["transfer_not_measured"].get<std::string>() + ")\n";
  return {std::move(doc), std::move(report)};
}

}  // namespace pipeplan::gpu
