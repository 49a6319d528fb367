#include "io/svg_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

#include "io/xml_escape.hpp"
#include "model/size_string.hpp"

namespace pipeplan {

namespace {

constexpr int kLeft = 90;        // room for the lane names
constexpr int kTop = 34;         // room for the title
constexpr int kLane = 22;        // height of a device's lane
constexpr int kLaneGap = 4;
constexpr int kAxis = 30;        // the time axis under the lanes
constexpr int kMemory = 130;     // the memory panel
constexpr int kRight = 20;

// Colours of F, B, W, BW and the overlapped FB (Tableau 10), so the kinds read apart in print and
// on screen.
constexpr std::array<const char*, kOpKindCount> kColours = {"#4e79a7", "#59a14f", "#f28e2b", "#b07aa1", "#e15759"};
constexpr std::array<const char*, 8> kLines = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b",
                                               "#b07aa1", "#76b7b2", "#edc948", "#9c755f"};

// A round tick step (1, 2 or 5 times a power of ten) giving about `ticks` ticks over `span`.
double tick_step(double span, int ticks) {
  double raw = span / ticks;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * power) return m * power;
  }
  return 10.0 * power;
}

// The end of the run's last op, over every iteration.
SimTime last_end(const SimResult& r) {
  SimTime last = 0;
  for (const DeviceTimeline& d : r.devices) {
    if (!d.ops.empty()) last = std::max(last, d.ops.back().end);
  }
  return last;
}


int panel_height(const SimResult& r) {
  return kTop + static_cast<int>(r.devices.size()) * (kLane + kLaneGap) + kAxis + kMemory + 30;
}

void document_start(TextSink& sink, int height, const SvgOptions& options, std::string_view title) {
  const int width = kLeft + options.width + kRight;
  fmt::format_to(std::back_inserter(sink.buffer()),
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<title>{}</title>\n",
      width, height, width, height, xml_escape(title));
}

// One run's lanes, axis, memory panel and legend, `end_ms` wide, from y = 0, written as they
// are drawn: the sink passes the text on after each op and each memory point.
void panel(TextSink& sink, const Schedule& s, const SimResult& r, const SvgOptions& options, double end_ms) {
  const double scale = options.width / end_ms;  // pixels per millisecond
  const int lanes_height = static_cast<int>(r.devices.size()) * (kLane + kLaneGap);
  const int memory_top = kTop + lanes_height + kAxis;
  auto x = [&](SimTime t) { return kLeft + ns_to_ms(t) * scale; };

  std::string& out = sink.buffer();
  auto to = std::back_inserter(out);
  fmt::format_to(to,
      "<text x=\"{}\" y=\"20\" font-size=\"14\">{}: {} devices, {} stages, {} micro-batches; makespan {:.3f} ms, "
      "bubble {:.1f}%</text>\n",
      kLeft, xml_escape(s.name), s.devices, s.stages, s.microbatches, ns_to_ms(r.makespan), 100.0 * r.bubble_rate());

  // The lanes and their ops.
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const int y = kTop + static_cast<int>(d) * (kLane + kLaneGap);
    fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">device {}</text>\n", kLeft - 8, y + kLane - 7, d);
    fmt::format_to(to, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f4f4f4\"/>\n", kLeft, y,
                       options.width, kLane);
    // A device's first stage is its chunk 0; later stages are drawn lighter.
    int first_stage = s.stages;
    for (std::size_t st = 0; st < s.placement.size(); ++st) {
      if (s.placement[st] == static_cast<int>(d)) first_stage = std::min(first_stage, static_cast<int>(st));
    }
    for (const OpTiming& t : r.devices[d].ops) {
      const double left = x(t.start);
      const double w = std::max(x(t.end) - left, 0.5);
      const bool later_chunk = t.op.stage != first_stage;
      fmt::format_to(to, 
          "<rect class=\"op\" x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"{} stroke=\"#fff\" "
          "stroke-width=\"0.5\"><title>{} stage {} micro-batch {}{}{}: {:.3f} to {:.3f} ms</title></rect>\n",
          left, y, w, kLane, kColours[static_cast<std::size_t>(t.op.kind)], later_chunk ? " fill-opacity=\"0.6\"" : "",
          kind_name(t.op.kind), t.op.stage, t.op.microbatch,
          t.op.kind == OpKind::FB
              ? fmt::format(" with the backward of stage {} micro-batch {}", t.op.overlap_stage, t.op.overlap_microbatch)
              : std::string(),
          r.options.iterations > 1 ? fmt::format(" iteration {}", t.iteration) : std::string(), ns_to_ms(t.start),
          ns_to_ms(t.end));
      const std::string label = std::to_string(t.op.microbatch);
      if (w >= 7.0 * static_cast<double>(label.size()) + 2.0) {
        fmt::format_to(to, "<text x=\"{:.2f}\" y=\"{}\" text-anchor=\"middle\" fill=\"#fff\" font-size=\"10\">{}</text>\n",
                           left + w / 2, y + kLane - 7, label);
      }
      sink.flush_if_full();
    }
  }

  // The time axis.
  const int axis_y = kTop + lanes_height + 4;
  fmt::format_to(to, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/>\n", kLeft, axis_y,
                     kLeft + options.width, axis_y);
  const double step = tick_step(end_ms, 10);
  for (double t = 0; t <= end_ms + step * 1e-9; t += step) {
    const double tx = kLeft + t * scale;
    fmt::format_to(to, "<line x1=\"{:.2f}\" y1=\"{}\" x2=\"{:.2f}\" y2=\"{}\" stroke=\"#333\"/>\n", tx, axis_y, tx,
                       axis_y + 4);
    fmt::format_to(to, "<text x=\"{:.2f}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n", tx, axis_y + 16, t);
  }
  fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">ms</text>\n", kLeft - 8, axis_y + 16);

  // The memory panel: each device's memory as a step line, its peak as a dot, the limit dashed.
  Bytes top = options.memory_limit.value_or(0);
  for (const DeviceTimeline& d : r.devices) top = std::max(top, d.peak_memory);
  top = std::max<Bytes>(top, 1);
  auto y_of = [&](Bytes b) {
    return memory_top + kMemory - static_cast<double>(b) / static_cast<double>(top) * (kMemory - 10);
  };
  fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">memory</text>\n", kLeft - 8, memory_top + 12);
  fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLeft - 8, memory_top + 26,
                     xml_escape(format_size(top)));
  fmt::format_to(to, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#ccc\"/>\n", kLeft,
                     memory_top, options.width, kMemory);
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const DeviceTimeline& t = r.devices[d];
    const char* colour = kLines[d % kLines.size()];
    double previous_y = y_of(t.static_memory);
    fmt::format_to(to, "<polyline class=\"memory\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\" points=\"", colour);
    fmt::format_to(to, "{:.2f},{:.2f}", static_cast<double>(kLeft), previous_y);
    for (const MemoryPoint& p : t.memory) {
      const double px = x(p.time);
      fmt::format_to(to, " {:.2f},{:.2f} {:.2f},{:.2f}", px, previous_y, px, y_of(p.bytes));
      previous_y = y_of(p.bytes);
      sink.flush_if_full();
    }
    fmt::format_to(to, " {:.2f},{:.2f}\"/>\n", static_cast<double>(kLeft + options.width), previous_y);
    fmt::format_to(to, 
        "<circle class=\"peak\" cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"3\" fill=\"{}\"><title>device {} peak {} at {:.3f} "
        "ms</title></circle>\n",
        x(t.peak_time), y_of(t.peak_memory), colour, d, xml_escape(format_size(t.peak_memory)), ns_to_ms(t.peak_time));
  }
  if (options.memory_limit) {
    const double ly = y_of(*options.memory_limit);
    fmt::format_to(to, 
        "<line class=\"limit\" x1=\"{}\" y1=\"{:.2f}\" x2=\"{}\" y2=\"{:.2f}\" stroke=\"#e15759\" "
        "stroke-dasharray=\"6 4\"><title>memory limit {}</title></line>\n",
        kLeft, ly, kLeft + options.width, ly, xml_escape(format_size(*options.memory_limit)));
  }

  // The legend.
  const int legend_y = memory_top + kMemory + 20;
  for (int k = 0; k < kOpKindCount; ++k) {
    const int lx = kLeft + k * 70;
    fmt::format_to(to, "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>", lx, legend_y - 10,
                       kColours[static_cast<std::size_t>(k)]);
    fmt::format_to(to, "<text x=\"{}\" y=\"{}\">{}</text>\n", lx + 16, legend_y, kind_name(static_cast<OpKind>(k)));
  }
  sink.flush_if_full();
}

}  // namespace

void write_svg_timeline(TextSink& sink, const Schedule& s, const SimResult& r, const SvgOptions& options) {
  document_start(sink, panel_height(r), options, s.name);
  panel(sink, s, r, options, std::max(ns_to_ms(last_end(r)), 1e-6));
  sink << "</svg>\n";
}

void write_svg_comparison(TextSink& sink, const std::vector<SvgRun>& runs, const SvgOptions& options) {
  double end_ms = 1e-6;
  int height = 0;
  for (const SvgRun& run : runs) {
    end_ms = std::max(end_ms, ns_to_ms(last_end(*run.result)));
    height += panel_height(*run.result);
  }
  document_start(sink, height, options, "comparison");
  int y = 0;
  for (const SvgRun& run : runs) {
    fmt::format_to(std::back_inserter(sink.buffer()), "<g transform=\"translate(0,{})\">\n", y);
    panel(sink, *run.schedule, *run.result, options, end_ms);
    sink << "</g>\n";
    y += panel_height(*run.result);
  }
  sink << "</svg>\n";
}

std::string svg_timeline(const Schedule& s, const SimResult& r, const SvgOptions& options) {
  return collect_text([&](TextSink& sink) { write_svg_timeline(sink, s, r, options); });
}

std::string svg_comparison(const std::vector<SvgRun>& runs, const SvgOptions& options) {
  return collect_text([&](TextSink& sink) { write_svg_comparison(sink, runs, options); });
}

}  // namespace pipeplan
