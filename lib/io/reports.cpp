#include "io/reports.hpp"

#include <fmt/format.h>

#include "io/json_fields.hpp"
#include "io/printable.hpp"
#include "model/size_string.hpp"

namespace pipeplan {

namespace {

std::string describe_schedule(const Schedule& s) {
  return fmt::format("{}: {} devices, {} stages, {} micro-batches, {} ops",
                     s.name.empty() ? "schedule" : printable(s.name), s.devices, s.stages, s.microbatches,
                     s.op_count());
}

double ratio(SimTime a, SimTime b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

}  // namespace

std::string simulation_text(const Schedule& schedule, const SimResult& r) {
  std::string out = describe_schedule(schedule) + "\n";
  out += fmt::format("makespan {:.3f} ms, bubble rate {:.2f}%\n", ns_to_ms(r.makespan), 100.0 * r.bubble_rate());
  // The gap says how far the step is from the best any schedule of this placement could do.
  const double gap = r.lower_bound > 0 ? 100.0 * (ratio(r.step_time(), r.lower_bound) - 1.0) : 0.0;
  out += fmt::format(
      "step {:.3f} ms ({} optimizer, {} iteration{}), lower bound {:.3f} ms (step {:+.2f}%), span bubble rate "
      "{:.2f}%\n\n",
      ns_to_ms(r.step_time()), optimizer_mode_name(r.options.optimizer_mode), r.options.iterations,
      r.options.iterations == 1 ? "" : "s", ns_to_ms(r.lower_bound), gap, 100.0 * r.span_bubble_rate());
  out += fmt::format("{:>6}  {:>12}  {:>12}  {:>7}  {:>12}  {:>12}\n", "device", "busy ms", "idle ms", "idle",
                     "peak memory", "peak at ms");
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const DeviceTimeline& t = r.devices[d];
    SimTime idle = r.makespan - t.busy();
    out +=
        fmt::format("{:>6}  {:>12.3f}  {:>12.3f}  {:>6.2f}%  {:>12}  {:>12.3f}\n", d, ns_to_ms(t.busy()),
                    ns_to_ms(idle), 100.0 * ratio(idle, r.makespan), format_size(t.peak_memory), ns_to_ms(t.peak_time));
  }
  return out;
}

std::string critical_path_text(const std::vector<CriticalStep>& path) {
  if (path.empty()) return "critical path: no ops were timed\n";
  std::size_t transfers = 0;
  for (const CriticalStep& step : path) transfers += step.after_transfer ? 1 : 0;
  std::string out = fmt::format("critical path: {} ops and {} transfers, {:.3f} to {:.3f} ms\n", path.size(), transfers,
                                ns_to_ms(path.front().op->start), ns_to_ms(path.back().op->end));
  out += fmt::format("{:>6}  {:>12}  {:>12}  {}\n", "device", "start ms", "end ms", "op");
  const OpTiming* before = nullptr;
  for (const CriticalStep& step : path) {
    const OpTiming& t = *step.op;
    out +=
        fmt::format("{:>6}  {:>12.3f}  {:>12.3f}  {}{}\n", t.device, ns_to_ms(t.start), ns_to_ms(t.end), describe(t.op),
                    step.after_transfer ? fmt::format(", after a transfer from device {}", before->device) : "");
    before = &t;
  }
  return out;
}

std::string comparison_text(const std::vector<ComparisonRow>& rows) {
  std::string out = fmt::format("{:<14} {:>13} {:>13} {:>8} {:>8} {:>9}  {}\n", "schedule", "makespan ms", "step ms",
                                "bubble", "span", "vs first", "peak memory per device");
  for (const ComparisonRow& row : rows) {
    const SimResult& r = row.result;
    std::vector<std::string> peaks;
    for (const DeviceTimeline& t : r.devices) peaks.push_back(format_size(t.peak_memory));
    out +=
        fmt::format("{:<14} {:>13.3f} {:>13.3f} {:>7.2f}% {:>7.2f}% {:>9.3f}  {}\n", row.schedule, ns_to_ms(r.makespan),
                    ns_to_ms(r.step_time()), 100.0 * r.bubble_rate(), 100.0 * r.span_bubble_rate(),
                    ratio(r.step_time(), rows.front().result.step_time()), fmt::join(peaks, ", "));
    if (row.within_memory_limit == false) out.insert(out.size() - 1, "  over the memory limit");
  }
  return out;
}

Json comparison_to_json(const std::vector<ComparisonRow>& rows) {
  Json j = file_header("pipeplan.comparison");
  Json& out = j["rows"] = Json::array();
  for (const ComparisonRow& row : rows) {
    const SimResult& r = row.result;
    Json peaks = Json::array();
    for (const DeviceTimeline& t : r.devices) peaks.push_back(t.peak_memory);
    out.push_back({{"schedule", row.schedule},
                   {"makespan_ms", ns_to_ms(r.makespan)},
                   {"step_ms", ns_to_ms(r.step_time())},
                   {"bubble_rate", r.bubble_rate()},
                   {"span_bubble_rate", r.span_bubble_rate()},
                   {"lower_bound_ms", ns_to_ms(r.lower_bound)},
                   {"ratio_to_first", ratio(r.step_time(), rows.front().result.step_time())},
                   {"peak_memory_bytes", std::move(peaks)}});
    if (row.within_memory_limit) out.back()["within_memory_limit"] = *row.within_memory_limit;
  }
  return j;
}

std::string validation_text(const Schedule& schedule, const std::vector<Problem>& problems) {
  if (problems.empty()) return "valid: " + describe_schedule(schedule) + "\n";
  std::string out = fmt::format("invalid: {}\n{} problem{}:\n", describe_schedule(schedule), problems.size(),
                                problems.size() == 1 ? "" : "s");
  for (const Problem& p : problems) out += fmt::format("  [{}] {}\n", problem_kind_name(p.kind), p.message);
  return out;
}

Json validation_to_json(const Schedule& schedule, const std::vector<Problem>& problems) {
  Json j = file_header("pipeplan.validation");
  j["schedule"] = schedule.name;
  j["valid"] = problems.empty();
  Json& out = j["problems"] = Json::array();
  for (const Problem& p : problems) {
    out.push_back({{"kind", problem_kind_name(p.kind)}, {"device", p.device}, {"message", p.message}});
  }
  return j;
}

}  // namespace pipeplan
