#include "calibrate_report.hpp"

#include <fmt/format.h>

#include <ctime>

#include "calibrate/throttle_reasons.hpp"

namespace pipeplan::gpu {

namespace {

std::string iso_date() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

Json clocks_json(int device) {
  std::string why;
  const std::optional<ClockReading> r = read_clocks(device, why);
  if (!r) return {{"not_recorded", why}};
  return {{"sm_mhz", r->sm_mhz},
          {"memory_mhz", r->memory_mhz},
          {"temperature_c", r->temperature_c},
          {"power_w", r->power_w},
          {"reasons", throttle_reason_names(r->reasons)},
          {"slowed", slowing_reasons(r->reasons) != 0}};
}

Json context_json(const Inventory& inv, const DeviceInfo& dev, const std::string& table_entry, const TimingPlan& plan,
                  Json clocks_start, Json clocks_end) {
  return {{"card", dev.name},
          {"table_entry", table_entry},
          {"driver_cuda", cuda_version_text(inv.driver)},
          {"cuda_runtime", cuda_version_text(inv.runtime)},
          {"cublas", cublas_version_text(inv.cublas_runtime)},
          {"nccl", nccl_version_text(inv.nccl_runtime)},
          {"sm_clock_peak_mhz", dev.clock_mhz},
          {"memory_clock_peak_mhz", dev.memory_clock_mhz},
          {"clocks_start", std::move(clocks_start)},
          {"clocks_end", std::move(clocks_end)},
          {"clocks_note",
           "current clocks, temperature, power and clock event reasons from NVML after the warm-up "
           "and after the last measurement"},
          {"date", iso_date()},
          {"warmup", plan.warmup},
          {"repetitions", plan.repetitions},
          {"timing",
           "repetitions back to back behind a gate kernel, an event between each two; NCCL samples "
           "the mean of a batch of back-to-back transfers"}};
}

std::string calibrate_report(const std::string& name, const PieceMeasurements& p, const TransferMeasurement& t,
                             Bytes bytes) {
  std::string report = fmt::format("{}\n{:<10} {:<26} {:>5} {:>10} {:>10} {:>7} {:>9}\n", name, "piece", "work",
                                   "phase", "median ms", "p90 ms", "CV", "TFLOP/s");
  for (const Json& j : p.measurements) {
    report += fmt::format("{:<10} {:<26} {:>5} {:>10.4f} {:>10.4f} {:>7.3f} {:>9}\n", j["piece"].get<std::string>(),
                          j["name"].get<std::string>(), j["phase"].get<std::string>(), j["median_ms"].get<double>(),
                          j["p90_ms"].get<double>(), j["cv"].get<double>(),
                          j.contains("tflops") ? fmt::format("{:.1f}", j["tflops"].get<double>()) : std::string("-"));
  }
  report += fmt::format("layer F/B/W: {:.3f} / {:.3f} / {:.3f} ms; head {:.3f} / {:.3f} / {:.3f} ms\n", p.layer.f,
                        p.layer.b, p.layer.w, p.head.f, p.head.b, p.head.w);
  if (!t.ms) return report + "transfer: not measured (" + t.not_measured + ")\n";
  report += fmt::format(
      "transfer: {:.4f} ms for the activation's {} bytes (the measured tables, interpolated; mean of "
      "the adjacent pairs)\n",
      *t.ms, bytes);
  for (const Json& l : t.links) {
    if (l["both_directions"].get<bool>()) continue;
    report += fmt::format("  link {} -> {}: {:.4f} ms + bytes / {:.2f} GB/s as a line, worst {:.0f}% off\n",
                          l["from"].get<int>(), l["to"].get<int>(), l["latency_ms"].get<double>(),
                          l["bandwidth_gb_per_s"].get<double>(), 100 * l["worst_relative_error"].get<double>());
  }
  return report;
}

}  // namespace pipeplan::gpu
