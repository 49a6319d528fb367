// pipeplan export: a schedule file in another format. Formats live in a table
// (io/export_formats.hpp); a format that shows time simulates the schedule with the cost flags
// first.
#include <array>
#include <memory>
#include <optional>

#include "comm_options.hpp"
#include "command.hpp"
#include "cost_options.hpp"
#include "enum_flags.hpp"
#include "file_roles.hpp"
#include "flag_checks.hpp"
#include "io/export_formats.hpp"
#include "io/result_json.hpp"
#include "io/schedule_json.hpp"
#include "io/schedule_text.hpp"
#include "memory_budget.hpp"
#include "model/error.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "sim/simulator.hpp"
#include "sim_options.hpp"
#include "terminal.hpp"

namespace pipeplan::cli {

namespace {

struct ExportOptions {
  std::string file;
  std::string format;
  CostOptions costs;
  SimFlags sim;
  std::string memory_limit;
  bool with_communication = false;
  std::string policy;
  std::string output;
};

// "svg, html": the formats for which `takes` holds.
template <typename Predicate>
std::string formats_where(Predicate takes) {
  std::string out;
  for (const ExportFormat& f : kExportFormats) {
    if (takes(f)) out += (out.empty() ? "" : ", ") + std::string(f.name);
  }
  return out;
}

// A flag the format or the input does not use is refused rather than ignored.
void check_flags_apply(const CLI::App& app, const ExportFormat& format, bool result_file, const std::string& file) {
  // csv --with-comms lowers the schedule with the costs (the timed policy): they apply there.
  const bool lowers = app.count("--with-comms") > 0 && format.comms;
  std::string timing = lowers ? "" : first_given(app, kCostFlags);
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
  for (const ExportFormat& f : kExportFormats) {
    names.emplace_back(f.name);
    help += std::string(" ") + f.name + " (" + f.description + ")";
  }
  sub.add_option("FILE", o->file, "Schedule JSON, or a result JSON written by simulate (drawn as it is)")
      ->required()
      ->type_name("FILE")
      ->check(file_name());
  sub.add_option("--format", o->format, help)
      ->required()
      ->type_name("FORMAT")
      ->transform(CLI::IsMember(names, CLI::ignore_case));
  add_cost_options(sub, o->costs);
  add_sim_options(sub, o->sim);
  sub.add_option("--memory-limit", o->memory_limit, "svg: draw this per-device limit in the memory panel")
      ->type_name("SIZE");
  sub.add_flag("--with-comms", o->with_communication,
               "csv: add SEND_F, RECV_F, SEND_B, RECV_B in an order that runs on NCCL: the file's own (a lowered "
               "schedule), else the --policy lowering");
  sub.add_option("--policy", o->policy,
                 "csv --with-comms: " + enum_list(kLowerPolicies) +
                     " (default timed: ordered by the overlapped run with the costs; never deadlocks or mispairs)")
      ->type_name("NAME");
  sub.add_option("-o,--output", o->output, "Write here instead of stdout")->type_name("FILE")->check(file_name());
  return [o, app = &sub] {
    check_file_roles({{"the input", o->file}, {"--profile", o->costs.profile}, {"-o", o->output, true}});
    const ExportFormat* format = nullptr;
    for (const ExportFormat& f : kExportFormats) {
      if (o->format == f.name) format = &f;
    }
    check_input_memory(o->file, kShortestJsonEntry);
    const std::string text = [&] {
      const Activity doing("reading " + o->file);
      return read_text_file(o->file);
    }();
    // A schedule as pipeplan writes it takes the one-pass scanner; a result or any other
    // schedule, the document reader.
    std::optional<LoweredSchedule> scanned = scan_schedule_text(text, o->with_communication);
    Json document = scanned ? Json() : parse_json(text, o->file);
    Schedule schedule;
    SimResult result;
    ExportSettings settings;
    settings.costs = describe_costs(o->costs);
    const auto format_field = document.is_object() ? document.find("format") : document.end();
    const bool is_result = format_field != document.end() && *format_field == "pipeplan.result";
    check_flags_apply(*app, *format, is_result, o->file);
    if (is_result) {
      LoadedResult loaded = result_from_json(document, o->file);  // already timed: no costs needed
      schedule = std::move(loaded.schedule);
      result = std::move(loaded.result);
      settings.costs = "timed as recorded in " + o->file;
    } else {
      schedule = scanned ? scanned->schedule : schedule_from_json(document, o->file);
      if (format->timed) {
        const CostModel costs = build_cost_model(o->costs, schedule.stages, schedule.devices);
        const WorkEstimate need = timing_estimate(schedule, sim_options(o->sim), CommFlags{}, o->file);
        check_memory(need.bytes, "timing " + o->file, need.large);
        try {
          const Activity doing("timing " + need.large);
          result = simulate(schedule, costs, sim_options(o->sim));
        } catch (const RunLimitError& e) {
          throw Error(run_limit_text(e));
        } catch (const Error& e) {
          throw Error(o->file + ": " + e.what());
        }
        if (result.deadlocked()) throw Error(o->file + ": the schedule deadlocks; 'pipeplan validate' says where");
      }
    }
    if (!o->policy.empty() && !(o->with_communication && format->comms)) {
      throw UsageError("--policy: applies to --format " + formats_where([](const ExportFormat& f) { return f.comms; }) +
                       " --with-comms");
    }
    if (o->with_communication) {  // check_flags_apply refused it for a format without comms
      // A result holds no sends or receives; a schedule file may (pipeplan lower, import --with-comms).
      const LoweredSchedule file = is_result ? LoweredSchedule{schedule, "", {}}
                                   : scanned ? std::move(*scanned)
                                             : lowered_from_json(document, o->file);
      settings.lowered = lowering_for(file, o->policy, build_cost_model(o->costs, schedule.stages, schedule.devices));
    }
    settings.text = terminal_text_options(o->output);
    if (!o->memory_limit.empty()) settings.svg.memory_limit = parse_size_flag(o->memory_limit, "--memory-limit");
    emit_streamed(o->output, [&](TextSink& out) { format->write(out, schedule, result, settings); });
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
