// pipeplan export: a schedule file in another format. Formats live in a table; a format that
// shows time simulates the schedule with the cost flags first.
#include <array>
#include <memory>
#include <optional>

#include "command.hpp"
#include "cost_options.hpp"
#include "io/chrome_trace.hpp"
#include "io/pytorch_csv.hpp"
#include "io/html_report.hpp"
#include "io/result_json.hpp"
#include "io/schedule_json.hpp"
#include "io/schedule_text.hpp"
#include "io/svg_timeline.hpp"
#include "io/text_timeline.hpp"
#include "model/error.hpp"
#include "output.hpp"
#include "terminal.hpp"
#include "sim/simulator.hpp"
#include "sim_options.hpp"

namespace pipeplan::cli {

namespace {

struct ExportSettings {
  SvgOptions svg;
  TextOptions text;
  std::string costs;  // where the costs came from, for the report
  bool with_communication = false;
};

struct ExportFormat {
  const char* name;
  const char* description;
  bool timed;  // needs a simulated run
  void (*write)(TextSink&, const Schedule&, const SimResult&, const ExportSettings&);
};

const std::array<ExportFormat, 5> kFormats = {{
    {"csv", "PyTorch pipelining's CSV in today's naming (with --with-comms: SEND/RECV actions too)", false,
     [](TextSink& out, const Schedule& s, const SimResult&, const ExportSettings& e) {
       out << schedule_to_pytorch_csv(s, e.with_communication);
     }},
    {"chrome", "Chrome trace (Perfetto, chrome://tracing): ops, transfers as flows, memory as a counter", true,
     [](TextSink& out, const Schedule& s, const SimResult& r, const ExportSettings&) { write_chrome_trace(out, s, r); }},
    {"svg", "SVG timeline: a lane per device, the memory of each under them", true,
     [](TextSink& out, const Schedule& s, const SimResult& r, const ExportSettings& e) {
       write_svg_timeline(out, s, r, e.svg);
     }},
    {"html", "HTML report, one self-contained file: summary, devices, the SVG timeline with details on hover", true,
     [](TextSink& out, const Schedule& s, const SimResult& r, const ExportSettings& e) {
       write_html_report(out, s, r, e.costs, e.svg);
     }},
    {"text", "terminal timeline, as wide as the terminal, in colour on a terminal", true,
     [](TextSink& out, const Schedule& s, const SimResult& r, const ExportSettings& e) {
       out << text_timeline(s, r, e.text);
     }},
}};

struct ExportOptions {
  std::string file;
  std::string format;
  CostOptions costs;
  SimFlags sim;
  std::string memory_limit;
  bool with_communication = false;
  std::string output;
};

}  // namespace

Runner add_export(CLI::App& sub) {
  auto o = std::make_shared<ExportOptions>();
  std::vector<std::string> names;
  std::string help = "Output format:";
  for (const ExportFormat& f : kFormats) {
    names.emplace_back(f.name);
    help += std::string(" ") + f.name + " (" + f.description + ")";
  }
  sub.add_option("FILE", o->file, "Schedule JSON, or a result JSON written by simulate (drawn as it is)")
      ->required()
      ->type_name("FILE");
  sub.add_option("--format", o->format, help)->required()->type_name("FORMAT")->check(CLI::IsMember(names));
  add_cost_options(sub, o->costs);
  add_sim_options(sub, o->sim);
  sub.add_option("--memory-limit", o->memory_limit, "svg: draw this per-device limit in the memory panel")
      ->type_name("SIZE");
  sub.add_flag("--with-comms", o->with_communication,
               "csv: add SEND_F, RECV_F, SEND_B, RECV_B around the ops that cross devices");
  sub.add_option("-o,--output", o->output, "Write here instead of stdout")->type_name("FILE");
  return [o] {
    const ExportFormat* format = nullptr;
    for (const ExportFormat& f : kFormats) {
      if (o->format == f.name) format = &f;
    }
    const std::string text = read_text_file(o->file);
    // A schedule as pipeplan writes it takes the one-pass scanner; a result or any other
    // schedule, the document reader.
    std::optional<LoweredSchedule> scanned = scan_schedule_text(text, false);
    Json document = scanned ? Json() : parse_json(text, o->file);
    Schedule schedule;
    SimResult result;
    ExportSettings settings;
    settings.costs = describe_costs(o->costs);
    const auto format_field = document.is_object() ? document.find("format") : document.end();
    if (format_field != document.end() && *format_field == "pipeplan.result") {
      LoadedResult loaded = result_from_json(document, o->file);  // already timed: no costs needed
      schedule = std::move(loaded.schedule);
      result = std::move(loaded.result);
      settings.costs = "timed as recorded in " + o->file;
    } else {
      schedule = scanned ? std::move(scanned->schedule) : schedule_from_json(document, o->file);
      if (format->timed) {
        result = simulate(schedule, build_cost_model(o->costs, schedule.stages, schedule.devices), sim_options(o->sim));
        if (result.deadlocked()) throw Error(o->file + ": the schedule deadlocks; 'pipeplan validate' says where");
      }
    }
    settings.with_communication = o->with_communication;
    settings.text = terminal_text_options(o->output);
    if (!o->memory_limit.empty()) settings.svg.memory_limit = parse_size_flag(o->memory_limit, "--memory-limit");
    emit_streamed(o->output, [&](TextSink& out) { format->write(out, schedule, result, settings); });
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
