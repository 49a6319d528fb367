// The formats of `pipeplan export`: one row each, with everything the runner asks of a format
// (docs/formats.md). A new format is its writer's file and its row here: declare the writer
// below, beside the others, and add the row; the command's help, its checks of which flags apply
// and tests/cli/every_export_format.sh read the table.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "io/chrome_trace.hpp"
#include "io/html_report.hpp"
#include "io/pytorch_csv.hpp"
#include "io/svg_timeline.hpp"
#include "io/text_sink.hpp"
#include "io/text_timeline.hpp"
#include "model/lowered.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

// What the command line gives a writer besides the schedule and its run.
struct ExportSettings {
  SvgOptions svg;
  TextOptions text;
  std::string costs;                       // where the costs came from, for the report
  std::optional<LoweredSchedule> lowered;  // csv --with-comms: what each device posts
};

struct ExportFormat {
  const char* name = "";
  const char* description = "";
  bool timed = false;        // needs a simulated run
  bool draws_limit = false;  // draws --memory-limit
  bool comms = false;        // takes --with-comms (and then --policy)
  void (*write)(TextSink&, const Schedule&, const SimResult&, const ExportSettings&) = nullptr;
};

inline constexpr std::array kExportFormats = {
    ExportFormat{.name = "csv",
                 .description = "PyTorch pipelining's CSV in today's naming (with --with-comms: SEND/RECV actions too)",
                 .comms = true,
                 .write =
                     [](TextSink& out, const Schedule& s, const SimResult&, const ExportSettings& e) {
                       out << (e.lowered ? lowered_to_pytorch_csv(*e.lowered) : schedule_to_pytorch_csv(s));
                     }},
    ExportFormat{
        .name = "chrome",
        .description = "Chrome trace (Perfetto, chrome://tracing): ops, transfers as flows, memory as a counter",
        .timed = true,
        .write = [](TextSink& out, const Schedule& s, const SimResult& r,
                    const ExportSettings&) { write_chrome_trace(out, s, r); }},
    ExportFormat{.name = "svg",
                 .description = "SVG timeline: a lane per device, the memory of each under them",
                 .timed = true,
                 .draws_limit = true,
                 .write = [](TextSink& out, const Schedule& s, const SimResult& r,
                             const ExportSettings& e) { write_svg_timeline(out, s, r, e.svg); }},
    ExportFormat{
        .name = "html",
        .description = "HTML report, one self-contained file: summary, devices, the SVG timeline with details on hover",
        .timed = true,
        .draws_limit = true,
        .write = [](TextSink& out, const Schedule& s, const SimResult& r,
                    const ExportSettings& e) { write_html_report(out, s, r, e.costs, e.svg); }},
    ExportFormat{.name = "text",
                 .description = "terminal timeline, as wide as the terminal, in colour on a terminal",
                 .timed = true,
                 .write = [](TextSink& out, const Schedule& s, const SimResult& r,
                             const ExportSettings& e) { out << text_timeline(s, r, e.text); }},
};

}  // namespace pipeplan
