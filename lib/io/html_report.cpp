#include "io/html_report.hpp"

#include <fmt/format.h>

#include <iterator>

#include "io/version.hpp"
#include "io/xml_escape.hpp"
#include "model/size_string.hpp"
#include "sim/critical_path.hpp"

namespace pipeplan {

namespace {

// The critical path under the timeline, where it is the black line: a count, then every op
// with its device, start and end, folded away (it can run to thousands of rows).
void write_critical_path(TextSink& sink, const Schedule& s, const SimResult& r) {
  const auto path = critical_path(s, r);
  if (path.empty()) return;
  std::size_t transfers = 0;
  for (const CriticalStep& step : path) transfers += step.after_transfer ? 1 : 0;
  auto out = std::back_inserter(sink.buffer());
  fmt::format_to(out,
                 "<h2>Critical path</h2>\n<p id=\"critical-summary\">{} ops and {} transfers between devices, {:.3f} "
                 "to {:.3f} ms: the chain that sets the makespan, drawn as the black line in the timeline. Shortening "
                 "an op off it gains nothing until the path moves.</p>\n<details>\n<summary>Its ops</summary>\n"
                 "<table id=\"critical\">\n<tr><th>device</th><th>start</th><th>end</th><th>op</th><th>waited for"
                 "</th></tr>\n",
                 path.size(), transfers, ns_to_ms(path.front().op->start), ns_to_ms(path.back().op->end));
  const OpTiming* before = nullptr;
  for (const CriticalStep& step : path) {
    const OpTiming& t = *step.op;
    fmt::format_to(out, "<tr><td>{}</td><td>{:.3f} ms</td><td>{:.3f} ms</td><td>{}</td><td>{}</td></tr>\n", t.device,
                   ns_to_ms(t.start), ns_to_ms(t.end), xml_escape(describe(t.op)),
                   before == nullptr     ? "nothing"
                   : step.after_transfer ? fmt::format("a transfer from device {}", before->device)
                                         : std::string("the op before it"));
    before = &t;
    sink.flush_if_full();
  }
  sink << "</table>\n</details>\n";
}

}  // namespace

void write_html_report(TextSink& sink, const Schedule& s, const SimResult& r, const std::string& costs,
                       const SvgOptions& svg) {
  auto out = std::back_inserter(sink.buffer());
  fmt::format_to(out, R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<title>{0} - pipeplan</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
th, td {{ border: 1px solid #ccc; padding: 0.3em 0.8em; text-align: right; }}
th {{ background: #f4f4f4; }}
rect.op:hover, rect.lane:hover {{ stroke: #000; stroke-width: 1.5; }}
polyline.critical:hover {{ stroke-width: 4; }}
details {{ margin: 1em 0; }}
.note {{ color: #666; font-size: 0.9em; }}
</style>
</head>
<body>
<h1>{0}</h1>
<p>{1} devices, {2} stages, {3} micro-batches, {4} ops; {5}.</p>
<table id="summary">
<tr><th>makespan</th><th>step</th><th>bubble</th><th>span bubble</th><th>lower bound</th></tr>
<tr><td>{6:.3f} ms</td><td>{7:.3f} ms</td><td>{8:.2f}%</td><td>{9:.2f}%</td><td>{10:.3f} ms</td></tr>
</table>
)",
                 xml_escape(s.name), s.devices, s.stages, s.microbatches, s.op_count(), xml_escape(costs),
                 ns_to_ms(r.makespan), ns_to_ms(r.step_time()), 100.0 * r.bubble_rate(), 100.0 * r.span_bubble_rate(),
                 ns_to_ms(r.lower_bound));
  // The timeline first, where a person looks, then the numbers behind it.
  sink << "<p class=\"note\">Hover over an op for its stage, micro-batch, start and end.</p>\n";
  write_svg_timeline(sink, s, r, svg);
  sink << "<table id=\"devices\">\n<tr><th>device</th><th>busy</th><th>idle</th><th>peak memory</th><th>peak at"
          "</th></tr>\n";
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const DeviceTimeline& t = r.devices[d];
    fmt::format_to(out, "<tr><td>{}</td><td>{:.3f} ms</td><td>{:.3f} ms</td><td>{}</td><td>{:.3f} ms</td></tr>\n", d,
                   ns_to_ms(t.busy()), ns_to_ms(r.makespan - t.busy()), xml_escape(format_size(t.peak_memory)),
                   ns_to_ms(t.peak_time));
  }
  sink << "</table>\n";
  write_critical_path(sink, s, r);
  fmt::format_to(std::back_inserter(sink.buffer()), "<p class=\"note\">Made by {}.</p>\n</body>\n</html>\n",
                 xml_escape(tool_version()));
  sink.flush_if_full();
}

std::string html_report(const Schedule& s, const SimResult& r, const std::string& costs, const SvgOptions& svg) {
  return collect_text([&](TextSink& sink) { write_html_report(sink, s, r, costs, svg); });
}

}  // namespace pipeplan
