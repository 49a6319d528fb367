// pipeplan compare: generate and simulate several schedules with the same costs, one row each.
#include <algorithm>
#include <memory>
#include <optional>

#include "comm_options.hpp"
#include "command.hpp"
#include "cost_options.hpp"
#include "file_roles.hpp"
#include "io/chrome_trace.hpp"
#include "io/memory_estimate.hpp"
#include "io/reports.hpp"
#include "io/svg_timeline.hpp"
#include "memory_budget.hpp"
#include "model/error.hpp"
#include "output.hpp"
#include "picture_options.hpp"
#include "progress.hpp"
#include "schedule_request.hpp"
#include "sim/simulator.hpp"
#include "sim_options.hpp"

namespace pipeplan::cli {

namespace {

struct CompareOptions {
  std::vector<std::string> schedules;
  RequestFlags request;
  CostOptions costs;
  SimFlags sim;
  CommFlags comm;
  PictureFlags pictures;
  bool json = false;
  std::string output;
};

// Whether every device's peak stays within --memory-limit; nullopt without a limit.
std::optional<bool> within_limit(const SimResult& result, const RequestFlags& flags) {
  std::vector<Bytes> limits = memory_limits(flags);
  if (limits.empty()) return std::nullopt;
  for (std::size_t d = 0; d < result.devices.size(); ++d) {
    if (result.devices[d].peak_memory > limits[limits.size() == 1 ? 0 : d]) return false;
  }
  return true;
}

}  // namespace

Runner add_compare(CLI::App& sub) {
  auto o = std::make_shared<CompareOptions>();
  sub.add_option("--schedules", o->schedules, "Generator names, comma-separated; the first is the baseline")
      ->required()
      ->delimiter(',')
      ->type_name("A,B,...");
  add_request_options(sub, o->request);
  add_cost_options(sub, o->costs);
  add_sim_options(sub, o->sim);
  add_comm_options(sub, o->comm);
  add_picture_options(sub, o->pictures);
  sub.add_flag("--json", o->json, "Print the rows as JSON");
  sub.add_option("-o,--output", o->output, "Also write the JSON rows to this file")
      ->type_name("FILE")
      ->check(file_name());
  return [o, app = &sub] {
    check_file_roles({{"--profile", o->costs.profile},
                      {"-o", o->output, true},
                      {"--svg", o->pictures.svg, true},
                      {"--trace", o->pictures.trace, true}});
    std::vector<const Generator*> chosen;
    for (const std::string& name : o->schedules) chosen.push_back(&generator_named(name));
    check_flags_apply(*app, chosen, o->request, false);
    const CostModel given = given_costs(o->costs, o->request.request.devices);
    // Op timings and memory timelines only for the pictures; the rows need none.
    SimOptions options = sim_options(o->sim);
    options.record_timeline = !o->pictures.svg.empty() || !o->pictures.trace.empty();
    std::vector<ComparisonRow> rows;
    std::vector<Schedule> schedules;
    std::string comm_line;  // the same for every run: generated schedules are lowered by --policy
    // Every schedule first, each checked against the run limits (sim/run_limits.hpp), so a
    // request too large for the third is refused before the first two are simulated.
    // Every schedule and its run are kept until the table is written: their estimates add up.
    Bytes need = 0;
    std::string large;
    for (const Generator* g : chosen) {
      const WorkEstimate e = generation_estimate(*g, o->request, sim_options(o->sim), false);
      need += e.bytes +
              run_bytes({e.ops, options.iterations, options.record_timeline, comm_mode(o->comm) != CommMode::Overlap});
      if (large.empty()) large = e.large;
    }
    check_memory(need, "compare of " + std::to_string(chosen.size()) + " schedules",
                 large + (options.iterations > 1 ? " x --iterations " + std::to_string(options.iterations) : ""));
    std::vector<Generated> all;
    for (const Generator* g : chosen) {
      const Activity doing("generating " + std::string(g->name));
      all.push_back(generate_for(*g, o->request, given, o->costs, sim_options(o->sim)));
      if (const std::optional<RunLimitProblem> limit =
              run_limit_problem(all.back().schedule, all.back().costs, options)) {
        throw Error(std::string(g->name) + ": " + run_limit_text(RunLimitError(*limit)));
      }
    }
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const Generator* g = chosen[i];
      Generated& generated = all[i];
      const LoweredSchedule plain{generated.schedule, "", {}};
      const Activity doing("timing " + std::string(g->name) + ": " + std::to_string(generated.schedule.op_count()) +
                           " ops");
      LoweredRun run = simulate_under(plain, generated.costs, options, o->comm, std::string(g->name));
      comm_line = describe_comm(run);
      SimResult result = std::move(run.run.result);
      if (result.deadlocked()) throw Error(std::string(g->name) + ": the generated schedule deadlocks");
      std::optional<bool> fits = within_limit(result, o->request);
      rows.push_back({std::string(g->name), std::move(result), fits});
      schedules.push_back(std::move(generated.schedule));
    }
    std::string json = to_json_text(comparison_to_json(rows));
    if (!o->output.empty()) emit(o->output, json);
    std::vector<SvgRun> svg_runs;
    std::vector<TraceRun> trace_runs;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      svg_runs.push_back({&schedules[i], &rows[i].result});
      trace_runs.push_back({rows[i].schedule, &schedules[i], &rows[i].result});
    }
    if (!o->pictures.svg.empty()) {
      // The limit, when one value holds for every device, is drawn in every panel's memory plot.
      SvgOptions svg;
      const std::vector<Bytes> limits = memory_limits(o->request);
      if (!limits.empty() && std::all_of(limits.begin(), limits.end(), [&](Bytes b) { return b == limits.front(); })) {
        svg.memory_limit = limits.front();
      }
      emit_streamed(o->pictures.svg, [&](TextSink& out) { write_svg_comparison(out, svg_runs, svg); });
    }
    if (!o->pictures.trace.empty()) {
      emit_streamed(o->pictures.trace, [&](TextSink& out) { write_chrome_trace_comparison(out, trace_runs); });
    }
    const bool overlapped = comm_mode(o->comm) == CommMode::Overlap;
    emit("", o->json ? json
                     : describe_costs(o->costs) + "\n" + (overlapped ? "" : comm_line + "\n") + comparison_text(rows));
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
