#include "io/svg_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

#include "io/lane_raster.hpp"
#include "io/svg_parts.hpp"
#include "io/xml_escape.hpp"
#include "sim/critical_path.hpp"

namespace pipeplan {

namespace {

using svg::Frame;
using svg::kAxis;
using svg::kLeft;
using svg::kLegend;
using svg::kRight;
using svg::kTop;

constexpr std::array<std::string_view, kOpKindCount> kKindLabels = {"forward", "input gradient", "weight gradient",
                                                                    "fused backward", "F overlapped with BW"};

const std::string kLaterFill = fmt::format(" fill-opacity=\"{}\"", svg::kLaterChunkOpacity);

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

int lanes_height(int devices) {
  return devices * (svg::lane_height(devices) + svg::lane_gap(devices));
}

int panel_height(const SimResult& r, Bytes memory_top) {
  return kTop + lanes_height(static_cast<int>(r.devices.size())) + kAxis + kLegend + svg::memory_height(memory_top) + 8;
}

// Boxes per op while the ops are three pixels wide on average; narrower, a box per op would turn
// a lane into stripes of borders and antialiasing, so the lane is drawn a pixel column at a time.
bool draws_boxes(const SimResult& r, const Frame& frame) {
  SimTime busy = 0;
  std::size_t ops = 0;
  for (const DeviceTimeline& d : r.devices) {
    for (const OpTiming& t : d.ops) busy += t.end - t.start;
    ops += d.ops.size();
  }
  return ops == 0 || ns_to_ms(busy) / static_cast<double>(ops) * frame.scale() >= 3.0;
}

void document_start(TextSink& sink, int height, const SvgOptions& options, std::string_view title) {
  const int width = kLeft + options.width + kRight;
  fmt::format_to(std::back_inserter(sink.buffer()),
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
                 "font-family=\"sans-serif\" font-size=\"11\">\n<title>{}</title>\n",
                 width, height, width, height, xml_escape(title));
}

// One op's box with its details for hover; its micro-batch where the box can hold it.
void op_box(std::string& out, const OpTiming& t, int y, int lane, double left, double w, bool later, int iterations) {
  auto to = std::back_inserter(out);
  fmt::format_to(
      to,
      "<rect class=\"op\" x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"{}{}><title>{} stage {} "
      "micro-batch {}{}{}: {:.3f} to {:.3f} ms</title></rect>\n",
      left, y, w, lane, svg::op_colour(t.op.kind), later ? kLaterFill : "",
      w >= 3.0 ? " stroke=\"#fff\" stroke-width=\"0.5\"" : "", kind_name(t.op.kind), t.op.stage, t.op.microbatch,
      t.op.kind == OpKind::FB
          ? fmt::format(" with the backward of stage {} micro-batch {}", t.op.overlap_stage, t.op.overlap_microbatch)
          : std::string(),
      iterations > 1 ? fmt::format(" iteration {}", t.iteration) : std::string(), ns_to_ms(t.start), ns_to_ms(t.end));
  const std::string label = std::to_string(t.op.microbatch);
  if (w >= 7.0 * static_cast<double>(label.size()) + 2.0 && lane >= 14) {
    fmt::format_to(to, "<text x=\"{:.2f}\" y=\"{}\" text-anchor=\"middle\" fill=\"#fff\" font-size=\"10\">{}</text>\n",
                   left + w / 2, y + lane - 7, label);
  }
}

// A lane drawn a pixel column at a time (lane_cells): a busy column in the colours of its ops
// mixed by time. Neighbouring columns whose colours differ by little join into one box of their
// mixed colour, so a steady state whose mix only wobbles from pixel to pixel is one box, not a
// thousand, while a change of phase (warm-up to steady state, a bubble) starts a new one.
// Memory stays O(width) per lane; the text streams box by box.
void lane_as_cells(TextSink& sink, const DeviceTimeline& device, int first_stage, int y, int lane, const Frame& frame) {
  const auto cells = lane_cells(device, first_stage, ms_to_ns(frame.end_ms), frame.width);
  std::array<SimTime, kLaneKeys> run{};  // what the open box covers
  std::string run_colour;                // its colour; empty: no box open
  std::string anchor;                    // the mix of its first columns
  std::size_t run_start = 0;
  auto close_run = [&](std::size_t end) {
    if (run_colour.empty()) return;
    fmt::format_to(std::back_inserter(sink.buffer()),
                   "<rect class=\"ops\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n",
                   kLeft + static_cast<int>(run_start), y, end - run_start, lane, run_colour);
    sink.flush_if_full();
    run_colour.clear();
  };
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (!cells[c].busy) {
      close_run(c);
      continue;
    }
    // The column is judged with the next few busy ones: a pixel of 1.3 ops swings between
    // mostly one kind and mostly another, eight pixels hold a steady state's true mix.
    std::array<SimTime, kLaneKeys> ahead{};
    for (std::size_t a = c; a < std::min(c + 8, cells.size()) && cells[a].busy; ++a) {
      for (std::size_t k = 0; k < kLaneKeys; ++k) ahead[k] += cells[a].covered[k];
    }
    // Against the mix where the box started, so that a slow drift cannot carry it into another
    // phase.
    const std::string ahead_colour = svg::mixed_colour(ahead);
    if (run_colour.empty() || !svg::similar_colours(ahead_colour, anchor)) {
      close_run(c);
      run = {};
      run_start = c;
      anchor = ahead_colour;
    }
    for (std::size_t k = 0; k < kLaneKeys; ++k) run[k] += cells[c].covered[k];
    run_colour = svg::mixed_colour(run);
  }
  close_run(cells.size());
}

// The critical path as one dark line along the bottom of the lanes it runs through, jumping
// between lanes where a transfer carried it to another device.
void critical_line(TextSink& sink, const Schedule& s, const SimResult& r, const Frame& frame, int lane, int gap) {
  const auto path = critical_path(s, r);
  if (path.empty()) return;
  std::size_t transfers = 0;
  for (const CriticalStep& step : path) transfers += step.after_transfer ? 1 : 0;
  std::string& out = sink.buffer();
  auto to = std::back_inserter(out);
  fmt::format_to(to,
                 "<polyline class=\"critical\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\" "
                 "stroke-linejoin=\"round\" points=\"");
  const double drop = std::max(lane * 0.8, lane - 4.0);  // near the bottom, clear of the labels
  for (const CriticalStep& step : path) {
    const double y = kTop + step.op->device * (lane + gap) + drop;
    fmt::format_to(to, "{:.2f},{:.2f} {:.2f},{:.2f} ", frame.x(step.op->start), y, frame.x(step.op->end), y);
    sink.flush_if_full();
  }
  fmt::format_to(to, "\"><title>critical path: {} ops and {} transfers, {:.3f} to {:.3f} ms</title></polyline>\n",
                 path.size(), transfers, ns_to_ms(path.front().op->start), ns_to_ms(path.back().op->end));
}

// The op legend: each kind the run has, on the first chunk and, lighter, on a later one; then
// the critical path's line.
void op_legend(std::string& out, const Schedule& s, const SimResult& r, int y, bool boxes) {
  std::array<bool, 2 * kOpKindCount> present{};
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const int first = first_stage_of(s, static_cast<int>(d));
    for (const OpTiming& t : r.devices[d].ops) {
      present[static_cast<std::size_t>(t.op.kind) * 2 + (t.op.stage != first ? 1 : 0)] = true;
    }
  }
  auto to = std::back_inserter(out);
  double x = kLeft;
  for (std::size_t k = 0; k < present.size(); ++k) {
    if (!present[k]) continue;
    const auto kind = static_cast<OpKind>(k / 2);
    const std::string label = fmt::format("{} {}{}", kind_name(kind), kKindLabels[k / 2], k % 2 ? ", later chunk" : "");
    fmt::format_to(to,
                   "<rect x=\"{0:.1f}\" y=\"{1}\" width=\"12\" height=\"12\" fill=\"#f4f4f4\"/><rect class=\"key\" "
                   "x=\"{0:.1f}\" y=\"{1}\" width=\"12\" height=\"12\" fill=\"{2}\"{3}/><text x=\"{4:.1f}\" y=\"{5}\">"
                   "{6}</text>\n",
                   x, y - 10, svg::op_colour(kind), k % 2 ? kLaterFill : "", x + 16, y, label);
    x += 30 + 6.2 * static_cast<double>(label.size());
  }
  fmt::format_to(to,
                 "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{2:.1f}\" y2=\"{1}\" stroke=\"#000\" stroke-width=\"2\"/>"
                 "<text x=\"{3:.1f}\" y=\"{4}\">critical path{5}</text>\n",
                 x, y - 4, x + 18, x + 22, y,
                 boxes ? "" : "; ops narrower than a pixel: each pixel mixes its ops' colours by time");
}

// One run's lanes, axis, legend and memory, from y = 0, written as they are drawn: the sink
// passes the text on after each op and each memory point.
void panel(TextSink& sink, const Schedule& s, const SimResult& r, const SvgOptions& options, const Frame& frame,
           Bytes memory_top) {
  const int devices = static_cast<int>(r.devices.size());
  const int lane = svg::lane_height(devices);
  const int gap = svg::lane_gap(devices);
  const int lanes = lanes_height(devices);
  std::string& out = sink.buffer();
  auto to = std::back_inserter(out);
  fmt::format_to(
      to,
      "<text x=\"{}\" y=\"20\" font-size=\"14\">{}: {} devices, {} stages, {} micro-batches; makespan {:.3f} ms, "
      "bubble {:.1f}%</text>\n",
      kLeft, xml_escape(s.name), s.devices, s.stages, s.microbatches, ns_to_ms(r.makespan), 100.0 * r.bubble_rate());

  // The lanes: a name on every lane, or every few where lanes are thinner than the text.
  const bool boxes = draws_boxes(r, frame);
  const int label_every = std::max(1, static_cast<int>(std::ceil(12.0 / (lane + gap))));
  for (int d = 0; d < devices; ++d) {
    const int y = kTop + d * (lane + gap);
    if (d % label_every == 0) {
      fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\"{}>device {}</text>\n", kLeft - 8,
                     y + lane / 2 + (lane >= 14 ? 4 : 3), lane >= 14 ? "" : " font-size=\"9\"", d);
    }
    const DeviceTimeline& device = r.devices[static_cast<std::size_t>(d)];
    // The lane's own details on hover, which its pixel columns do not have.
    fmt::format_to(to,
                   "<rect class=\"lane\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f4f4f4\">"
                   "<title>device {}: {} ops, busy {:.3f} ms</title></rect>\n",
                   kLeft, y, frame.width, lane, d, device.ops.size(), ns_to_ms(device.busy()));
    const int first_stage = first_stage_of(s, d);
    if (!boxes) {
      lane_as_cells(sink, device, first_stage, y, lane, frame);
      continue;
    }
    for (const OpTiming& t : device.ops) {
      const double left = frame.x(t.start);
      op_box(out, t, y, lane, left, std::max(frame.x(t.end) - left, 0.5), t.op.stage != first_stage,
             r.options.iterations);
      sink.flush_if_full();
    }
  }
  critical_line(sink, s, r, frame, lane, gap);

  // The time axis.
  const int axis_y = kTop + lanes + 4;
  fmt::format_to(to, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/>\n", kLeft, axis_y,
                 kLeft + frame.width, axis_y);
  const double step = tick_step(frame.end_ms, 10);
  for (double t = 0; t <= frame.end_ms + step * 1e-9; t += step) {
    const double tx = kLeft + t * frame.scale();
    fmt::format_to(to, "<line x1=\"{:.2f}\" y1=\"{}\" x2=\"{:.2f}\" y2=\"{}\" stroke=\"#333\"/>\n", tx, axis_y, tx,
                   axis_y + 4);
    fmt::format_to(to, "<text x=\"{:.2f}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n", tx, axis_y + 16, t);
  }
  fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">ms</text>\n", kLeft - 8, axis_y + 16);

  const int legend_y = kTop + lanes + kAxis + 14;
  fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">boxes</text>\n", kLeft - 8, legend_y);
  op_legend(out, s, r, legend_y, boxes);
  svg::write_memory_panel(sink, r, frame, kTop + lanes + kAxis + kLegend, memory_top, options.memory_limit);
  sink.flush_if_full();
}

}  // namespace

void write_svg_timeline(TextSink& sink, const Schedule& s, const SimResult& r, const SvgOptions& options) {
  const Bytes top = svg::memory_top(r, options.memory_limit);
  document_start(sink, panel_height(r, top), options, s.name);
  panel(sink, s, r, options, Frame{options.width, std::max(ns_to_ms(last_end(r)), 1e-6)}, top);
  sink << "</svg>\n";
}

void write_svg_comparison(TextSink& sink, const std::vector<SvgRun>& runs, const SvgOptions& options) {
  // One time scale and one memory scale for every run, so that both compare at a glance.
  double end_ms = 1e-6;
  Bytes top = 0;
  for (const SvgRun& run : runs) {
    end_ms = std::max(end_ms, ns_to_ms(last_end(*run.result)));
    top = std::max(top, svg::memory_top(*run.result, options.memory_limit));
  }
  int height = 0;
  for (const SvgRun& run : runs) height += panel_height(*run.result, top);
  document_start(sink, height, options, "comparison");
  int y = 0;
  for (const SvgRun& run : runs) {
    fmt::format_to(std::back_inserter(sink.buffer()), "<g transform=\"translate(0,{})\">\n", y);
    panel(sink, *run.schedule, *run.result, options, Frame{options.width, end_ms}, top);
    sink << "</g>\n";
    y += panel_height(*run.result, top);
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
