// pipeplan simulate: time a schedule file and print a summary or the result JSON.
#include <iostream>
#include <memory>

#include "comm_options.hpp"
#include "command.hpp"
#include "cost_options.hpp"
#include "file_roles.hpp"
#include "io/chrome_trace.hpp"
#include "io/reports.hpp"
#include "io/result_json.hpp"
#include "io/schedule_json.hpp"
#include "io/svg_timeline.hpp"
#include "memory_budget.hpp"
#include "model/error.hpp"
#include "output.hpp"
#include "picture_options.hpp"
#include "progress.hpp"
#include "sim/critical_path.hpp"
#include "sim/simulator.hpp"
#include "sim_options.hpp"

namespace pipeplan::cli {

namespace {

struct SimulateOptions {
  std::string file;
  CostOptions costs;
  SimFlags sim;
  CommFlags comm;
  PictureFlags pictures;
  bool json = false;
  bool critical_path = false;
  std::string output;
};

}  // namespace

Runner add_simulate(CLI::App& sub) {
  auto o = std::make_shared<SimulateOptions>();
  sub.add_option("FILE", o->file, "Schedule JSON")->required()->type_name("FILE")->check(file_name());
  add_cost_options(sub, o->costs);
  add_sim_options(sub, o->sim);
  add_comm_options(sub, o->comm);
  add_picture_options(sub, o->pictures);
  auto* json = sub.add_flag("--json", o->json, "Print the result JSON instead of the summary");
  sub.add_flag("--critical-path", o->critical_path,
               "After the summary, list the critical path: the ops and transfers that set the makespan, each with its "
               "device, start and end")
      ->excludes(json);
  sub.add_option("-o,--output", o->output, "Also write the result JSON to this file")
      ->type_name("FILE")
      ->check(file_name());
  return [o] {
    check_file_roles({{"the input", o->file},
                      {"--profile", o->costs.profile},
                      {"-o", o->output, true},
                      {"--svg", o->pictures.svg, true},
                      {"--trace", o->pictures.trace, true}});
    const LoweredSchedule file = read_schedule_input(o->file);
    const Schedule& schedule = file.schedule;
    CostModel costs = build_cost_model(o->costs, schedule.stages, schedule.devices);
    // Every op's timing and every memory change only for an output that shows them: the
    // summary needs the per-device figures, which every run keeps.
    SimOptions options = sim_options(o->sim);
    const bool writes_result = o->json || !o->output.empty();
    options.record_timeline =
        writes_result || o->critical_path || !o->pictures.svg.empty() || !o->pictures.trace.empty();
    // One walk down and back: lowered at most once, simulated once (simulate_lowered).
    const LoweredRun run = time_checked(file, costs, options, o->comm, o->file);
    const SimResult& result = run.run.result;
    if (result.deadlocked()) {
      const BlockedDevice& b = result.deadlock.front();
      throw Error(o->file + ": the schedule deadlocks (device " + std::to_string(b.device) + " is stuck at " +
                  describe(b.head) + "); 'pipeplan validate " + o->file + "' lists every blocked device");
    }
    const bool overlapped = run.mode == CommMode::Overlap;
    const auto write_result = [&](TextSink& out) { write_result_json(out, schedule, run); };
    if (!o->output.empty()) emit_streamed(o->output, write_result);
    if (!o->pictures.svg.empty()) {
      emit_streamed(o->pictures.svg, [&](TextSink& out) { write_svg_timeline(out, schedule, result); });
    }
    if (!o->pictures.trace.empty()) {
      emit_streamed(o->pictures.trace, [&](TextSink& out) { write_chrome_trace(out, schedule, result); });
    }
    if (o->json) {
      emit_streamed("", write_result);
    } else {
      emit("", describe_costs(o->costs) + "\n" + (overlapped ? "" : describe_comm(run) + "\n") +
                   simulation_text(schedule, result) +
                   (o->critical_path ? "\n" + critical_path_text(critical_path(schedule, result)) : ""));
    }
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
