// pipeplan export: a schedule file in another format. Formats live in a table; a format that
// shows time simulates the schedule with the cost flags first.
#include <array>
#include <memory>

#include "command.hpp"
#include "file_roles.hpp"
#include "flag_checks.hpp"
#include "cost_options.hpp"
#include "io/chrome_trace.hpp"
#include "io/pytorch_csv.hpp"
#include "io/html_report.hpp"
#include "io/result_json.hpp"
#include "io/schedule_json.hpp"
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
  bool timed;        // needs a simulated run
  bool draws_limit;  // draws --memory-limit
  bool comms;        // takes --with-comms
  std::string (*write)(const Schedule&, const SimResult&, const ExportSettings&);
};

const std::array<ExportFormat, 5> kFormats = {{
    {"csv", "PyTorch pipelining's CSV in today's naming (with --with-comms: SEND/RECV actions too)", false, false, true,
     [](const Schedule& s, const SimResult&, const ExportSettings& e) {
       return schedule_to_pytorch_csv(s, e.with_communication);
     }},
    {"chrome", "Chrome trace (Perfetto, chrome://tracing): ops, transfers as flows, memory as a counter", true, false,
     false,
     [](const Schedule& s, const SimResult& r, const ExportSettings&) { return to_json_text(chrome_trace(s, r)); }},
    {"svg", "SVG timeline: a lane per device, the memory of each under them", true, true, false,
     [](const Schedule& s, const SimResult& r, const ExportSettings& e) { return svg_timeline(s, r, e.svg); }},
    {"html", "HTML report, one self-contained file: summary, devices, the SVG timeline with details on hover", true, true,
     false,
     [](const Schedule& s, const SimResult& r, const ExportSettings& e) { return html_report(s, r, e.costs, e.svg); }},
    {"text", "terminal timeline, as wide as the terminal, in colour on a terminal", true, false, false,
     [](const Schedule& s, const SimResult& r, const ExportSettings& e) { return text_timeline(s, r, e.text); }},
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

// "svg, html": the formats for which `takes` holds.
template <typename Predicate>
std::string formats_where(Predicate takes) {
  std::string out;
  for (const ExportFormat& f : kFormats) {
    if (takes(f)) out += (out.empty() ? "" : ", ") + std::string(f.name);
  }
  return out;
}

// A flag the format or the input does not use is refused rather than ignored.
void check_flags_apply(const CLI::App& app, const ExportFormat& format, bool result_file, const std::string& file) {
  std::string timing = first_given(app, kCostFlags);
  if (timing.empty()) timing = first_given(app, kSimFlags);
  if (!timing.empty() && !format.timed) {
    throw UsageError(timing + ": --format " + format.name + " is not timed; the cost and steady-state flags apply to " +
                     formats_where([](const ExportFormat& f) { return f.timed; }));
  }
  if (!timing.empty() && result_file) {
    throw UsageError(timing + ": " + file + " is a result, timed already; drop the cost and steady-state flags");
  }
  if (app.count("--memory-limit") > 0 && !format.draws_limit) {
    throw UsageError("--memory-limit: --format " + std::string(format.name) + " draws no memory limit; it applies to " +
                     formats_where([](const ExportFormat& f) { return f.draws_limit; }));
  }
  if (app.count("--with-comms") > 0 && !format.comms) {
    const std::string takers = formats_where([](const ExportFormat& f) { return f.comms; });
    throw UsageError("--with-comms: applies to --format " + takers + ", not " + format.name);
  }
}

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
      ->type_name("FILE")->check(file_name());
  sub.add_option("--format", o
      ->format, help)
      ->required()
      ->type_name("FORMAT")
      ->transform(CLI::IsMember(names, CLI::ignore_case));
  add_cost_options(sub, o->costs);
  add_sim_options(sub, o->sim);
  sub.add_option("--memory-limit", o->memory_limit, "svg: draw this per-device limit in the memory panel")
      ->type_name("SIZE");
  sub.add_flag("--with-comms", o->with_communication,
               "csv: add SEND_F, RECV_F, SEND_B, RECV_B around the ops that cross devices");
  sub.add_option("-o,--output", o->output, "Write here instead of stdout")->type_name("FILE")->check(file_name());
  return [o, app = &sub] {
    check_file_roles({{"the input", o->file}, {"--profile", o->costs.profile}, {"-o", o->output, true}});
    const ExportFormat* format = nullptr;
    for (const ExportFormat& f : kFormats) {
      if (o->format == f.name) format = &f;
    }
    Json document = parse_json(read_text_file(o->file), o->file);
    Schedule schedule;
    SimResult result;
    ExportSettings settings;
    settings.costs = describe_costs(o->costs);
    const auto format_field = document.is_object() ? document.find("format") : document.end();
    const bool result_file = format_field != document.end() && *format_field == "pipeplan.result";
    check_flags_apply(*app, *format, result_file, o->file);
    if (result_file) {
      LoadedResult loaded = result_from_json(document, o->file);  // already timed: no costs needed
      schedule = std::move(loaded.schedule);
      result = std::move(loaded.result);
      settings.costs = "timed as recorded in " + o->file;
    } else {
      schedule = schedule_from_json(document, o->file);
      if (format->timed) {
        const CostModel costs = build_cost_model(o->costs, schedule.stages, schedule.devices);
        try {
          result = simulate(schedule, costs, sim_options(o->sim));
        } catch (const Error& e) {
          throw Error(o->file + ": " + e.what());
        }
        if (result.deadlocked()) throw Error(o->file + ": the schedule deadlocks; 'pipeplan validate' says where");
      }
    }
    settings.with_communication = o->with_communication;
    settings.text = terminal_text_options(o->output);
    if (!o->memory_limit.empty()) settings.svg.memory_limit = parse_size_flag(o->memory_limit, "--memory-limit");
    emit(o->output, format->write(schedule, result, settings));
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
