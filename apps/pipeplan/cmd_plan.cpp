// pipeplan plan: search pipeline degree, chunks, micro-batches, layouts and schedules for a model
// on a number of GPUs, and rank what fits in memory by tokens per second per GPU.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "calibrate/measured_pieces.hpp"
#include "comm_options.hpp"
#include "command.hpp"
#include "cost_options.hpp"
#include "enum_flags.hpp"
#include "estimate/megatron_layout.hpp"
#include "file_roles.hpp"
#include "io/analytic_profile_json.hpp"
#include "io/calibrated_profile_json.hpp"
#include "io/json_text.hpp"
#include "io/plan_flags.hpp"
#include "io/plan_glance.hpp"
#include "io/plan_json.hpp"
#include "io/plan_text.hpp"
#include "io/pytorch_csv.hpp"
#include "io/schedule_text.hpp"
#include "launch_text.hpp"
#include "model/error.hpp"
#include "model/size_string.hpp"
#include "model_options.hpp"
#include "output.hpp"
#include "plan/launch.hpp"
#include "plan/planner.hpp"
#include "plan/search_space.hpp"
#include "progress.hpp"
#include "schedule_request.hpp"
#include "schedules/zb_search.hpp"
#include "sim_options.hpp"

namespace pipeplan::cli {

namespace {

// The header's words for --comm and --policy; nothing under overlap, the default.
std::string plan_comm_text(const PlanRequest& request) {
  if (request.comm == CommMode::Overlap) return "";
  return fmt::format(", sends and receives {} (--comm {}), lowered with {}",
                     request.comm == CommMode::Blocking ? "on the compute stream" : "on a stream of their own",
                     comm_mode_name(request.comm), policy_name(request.policy.value_or(LowerPolicy::Timed)));
}

struct PlanOptions {
  ModelOptions model;
  PlanFlags plan;  ///< its optimizer mode and iterations are sim's
  bool json = false;
  bool breakdown = false;
  std::string emit_dir;
  std::string emit_rows_dir;
  std::string output;
  SimFlags sim;
  bool wide = false;
  std::string launch;  ///< a kFrameworks name, or "" for the table
  int row = 0;         ///< the row --launch and --emit-schedule take, from 1; 0: the first
};

// A row's schedule.json and profile.json in `dir`: the schedule and the analytic profile it was
// simulated with, rebuilt (rebuild_row), which `pipeplan simulate` reads back to the row's step;
// and its schedule as PyTorch's CSV (the file torchtitan's pipeline_parallel_schedule_csv reads,
// docs/launch.md).
void write_row(const PlanRequest& request, const PlanRow& row, const std::string& dir, const std::string& flag) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(flag + " " + dir + ": cannot create the directory: " + ec.message());
  const PlannedRun run = rebuild_row(request, row);
  emit(dir + "/profile.json",
       to_json_text(analytic_profile_to_json(run.profile.costs, plan_row_title(row),
                                             "pipeplan plan: analytic estimate (docs/costs.md)")));
  emit(dir + "/schedule.json", schedule_json_text(run.schedule));
  emit(dir + "/schedule.csv", schedule_to_pytorch_csv(run.schedule));
}

}  // namespace

Runner add_plan(CLI::App& sub) {
  auto o = std::make_shared<PlanOptions>();
  add_model_options(sub, o->model, true);
  sub.add_option("--gpus", o->plan.gpus, "GPUs of the job: tensor x context x pipeline x data parallelism")
      ->type_name("N")
      ->required()
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--memory-limit", o->plan.memory_limit, "Per-GPU memory limit, above 0 (default: the card's memory)")
      ->type_name("SIZE");
  sub.add_option("--memory-reserve", o->plan.memory_reserve,
                 "Memory kept off the limit for what the runtime holds beside the tensors: the CUDA context, "
                 "NCCL's buffers (default 1GiB)")
      ->type_name("SIZE");
  sub.add_option("--schedules", o->plan.schedules,
                 fmt::format("Generators to try, comma-separated (default {}; and dualpipev for a mixture of experts)",
                             fmt::join(default_plan_schedules(), ",")))
      ->delimiter(',')
      ->type_name("A,B,...");
  sub.add_option("--layout", o->plan.layout,
                 "Use this layout (E,t*N|...|t*N,H, or Megatron's Et*N|...|t*NL), or 'even' / 'padded' (Megatron's "
                 "splits) for every stage count")
      ->type_name("LAYOUT");
  sub.add_option("--top", o->plan.top, "Rows to show")
      ->type_name("K")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub.add_option("--pp", o->plan.pp, "Only this pipeline degree (default: every one dividing the GPUs over tp)")
      ->type_name("P")
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--chunks", o->plan.chunks,
                 "Only this many chunks per device, and only the schedules that take it (default: each "
                 "schedule's own, or 2 to --max-chunks)")
      ->type_name("V")
      ->check(CLI::Range(1, 64));
  sub.add_option("--max-chunks", o->plan.max_chunks,
                 "Most chunks per device tried for the interleaved and automatic schedules")
      ->type_name("V")
      ->check(CLI::Range(2, 16))
      ->capture_default_str();
  sub.add_option(
         "--microbatches", o->plan.microbatches,
         "Only configurations with M micro-batches per step (default: any; M = global batch / (dp x micro-batch))")
      ->type_name("M")
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--threads", o->plan.threads, "Threads (default: every core)")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
  sub.add_flag("--json", o->json, "Print every row as JSON: {\"rows\": [...]}");
  sub.add_option("-o,--output", o->output, "Also write the JSON rows to this file")
      ->type_name("FILE")
      ->check(file_name());
  sub.add_option(
         "--calibration", o->plan.calibration,
         "A profile from 'pipeplan-gpu calibrate': its measured layer, head and embedding times replace the estimates")
      ->type_name("FILE")
      ->check(file_name());
  add_sim_options(sub, o->sim);
  add_comm_options(sub, o->plan.comm, false);
  o->sim.iterations = 0;  // unset: chosen by the mode below
  sub.get_option("--iterations")
      ->description(
          "Steps simulated back to back (default 1 under sync; 3 under post-validation, whose gain is in the steady "
          "state)");
  sub.add_flag("--breakdown", o->breakdown,
               "Say where each shown row's step goes (GEMMs, attention, element-wise, each kind of communication, "
               "bubble, optimizer), on its busiest device; with --json, a \"breakdown\" object in each row");
  sub.add_option(
         "--emit-schedule", o->emit_dir,
         "Write the winner's (or --row's) schedule.json, profile.json and schedule.csv (PyTorch's CSV) into DIR")
      ->type_name("DIR")
      ->check(file_name());
  sub.add_option("--emit-rows", o->emit_rows_dir,
                 "Write each row shown (--top) into DIR/N, N its number in the table: its schedule.json and "
                 "profile.json, as --emit-schedule writes the winner's")
      ->type_name("DIR")
      ->check(file_name());
  CLI::Option* launch =
      sub.add_option("--launch", o->launch,
                     "Print what runs the first row (or --row's) instead of the table: " + enum_help(kFrameworks))
          ->type_name("FRAMEWORK")
          ->transform(enum_choices_of(kFrameworks));
  sub.add_option("--row", o->row, "The row --launch and --emit-schedule take (default 1, the winner)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000));
  CLI::Option* wide = sub.add_flag("--wide", o->wide, "Print every column in full, however wide (the table only)");
  sub.get_option("--json")->excludes(launch)->excludes(wide);
  launch->excludes(wide);
  return [o, app = &sub] {
    if (o->row > 0 && o->launch.empty() && o->emit_dir.empty()) {
      throw FlagError("--row " + std::to_string(o->row) + " needs --launch or --emit-schedule: it chooses their row");
    }
    const std::string emitted = o->emit_dir.empty() ? "" : o->emit_dir + "/";
    std::vector<FileRole> roles{
        {"--model", o->model.model}, {"--calibration", o->plan.calibration}, {"-o", o->output, true}};
    for (const char* file : {"profile.json", "schedule.json", "schedule.csv"}) {
      roles.push_back({"--emit-schedule", emitted.empty() ? "" : emitted + file, true});
    }
    for (int n = 1; !o->emit_rows_dir.empty() && n <= o->plan.top; ++n) {
      for (const char* file : {"/profile.json", "/schedule.json", "/schedule.csv"}) {
        roles.push_back({"--emit-rows", fmt::format("{}/{}{}", o->emit_rows_dir, n, file), true});
      }
    }
    check_file_roles(roles);
    ModelInput in = read_model_input(o->model);
    SearchedSettings searched = searched_settings(o->model);
    PlanFlags flags = o->plan;
    flags.optimizer_mode = o->sim.optimizer_mode;
    flags.iterations = o->sim.iterations;
    flags.memory_limit_given = app->count("--memory-limit") > 0;
    flags.top = std::max(flags.top, o->row);  // the row taken is ranked as exactly as the rows shown
    const PlanRequest request = plan_request_for(in, searched, o->model, flags);
    const Bytes card = request.memory_limit > 0 ? request.memory_limit : in.gpu->memory_bytes;
    PlanOutcome outcome;
    {
      Activity planning("planning");
      outcome = plan(
          request, [&planning](std::size_t done, std::size_t total) { planning.count(done, total, "configurations"); });
    }
    const std::size_t taken = o->row > 0 ? std::size_t(o->row - 1) : 0;
    if ((!o->emit_dir.empty() || !o->launch.empty()) && taken >= outcome.rows.size()) {
      const std::string flag = o->row > 0          ? "--row " + std::to_string(o->row)
                               : o->launch.empty() ? std::string("--emit-schedule")
                                                   : std::string("--launch");
      throw Error(fmt::format("{}: {}", flag,
                              outcome.rows.empty() ? "no configuration fits in memory, nothing to write"
                                                   : fmt::format("only {} rows fit in memory", outcome.rows.size())));
    }
    if (!o->emit_rows_dir.empty()) {
      if (outcome.rows.empty()) throw Error("--emit-rows: no configuration fits in memory, nothing to write");
      for (std::size_t i = 0; i < std::min(outcome.rows.size(), std::size_t(o->plan.top)); ++i) {
        write_row(request, outcome.rows[i], fmt::format("{}/{}", o->emit_rows_dir, i + 1), "--emit-rows");
      }
    }
    const std::string csv = emitted.empty() ? "" : emitted + "schedule.csv";
    if (!o->emit_dir.empty()) write_row(request, outcome.rows[taken], o->emit_dir, "--emit-schedule");
    const std::string described =
        describe_input(in, &searched) +
        fmt::format(
            ", global batch {}, {} GPUs, ranks {}, {} of {} per GPU for the model ({} kept for the runtime){}{}\n",
            in.training.global_batch, o->plan.gpus,
            request.rank_order ? rank_order_name(*request.rank_order) : "searched",
            format_size(card - request.memory_reserve), format_size(card), format_size(request.memory_reserve),
            o->plan.microbatches > 0
                ? ""
                : fmt::format(", up to {} micro-batches per step searched", kMaxSearchedMicrobatches),
            plan_comm_text(request));
    // Before the breakdowns go: the line under the table reads them.
    const std::string table = o->wide ? described + plan_text(outcome, std::size_t(o->plan.top))
                                      : wrap_lines(described, kGlanceWidth) +
                                            plan_glance_text(outcome, std::size_t(o->plan.top), kGlanceWidth);
    if (!o->breakdown) {  // the rows' JSON stays as it was unless asked
      for (PlanRow& row : outcome.rows) row.breakdown.reset();
    }
    const std::string json = to_json_text(plan_to_json(outcome));
    if (!o->output.empty()) emit(o->output, json);
    if (!o->launch.empty()) {
      const Framework framework = *enum_named(kFrameworks, o->launch);
      const PlanRow& row = outcome.rows[taken];
      emit("", launch_text(launch_plan(framework, request, row, {csv}), row, taken + 1));
      return kExitOk;
    }
    emit("", o->json ? json
                     : table + (o->breakdown ? plan_breakdown_text(outcome, std::size_t(o->plan.top)) : std::string()));
    return outcome.rows.empty() ? kExitInvalid : kExitOk;
  };
}

}  // namespace pipeplan::cli
