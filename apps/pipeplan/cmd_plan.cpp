// pipeplan plan: search pipeline degree, chunks, micro-batches, layouts and schedules for a model
// on a number of GPUs, and rank what fits in memory by tokens per second per GPU.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "calibrate/measured_pieces.hpp"
#include "command.hpp"
#include "cost_options.hpp"
#include "estimate/megatron_layout.hpp"
#include "file_roles.hpp"
#include "io/analytic_profile_json.hpp"
#include "io/calibrated_profile_json.hpp"
#include "io/json_text.hpp"
#include "io/plan_json.hpp"
#include "io/plan_text.hpp"
#include "io/schedule_text.hpp"
#include "model/error.hpp"
#include "model/size_string.hpp"
#include "model_options.hpp"
#include "output.hpp"
#include "plan/planner.hpp"
#include "schedule_request.hpp"
#include "schedules/zb_search.hpp"
#include "sim_options.hpp"

namespace pipeplan::cli {

namespace {

struct PlanOptions {
  ModelFlags model;
  int gpus = 0;
  std::string memory_limit;
  std::string memory_reserve;
  std::vector<std::string> schedules;
  std::string layout;
  int top = 5;
  int pp = 0;
  int chunks = 0;
  int max_chunks = 4;
  int microbatches = 0;
  int threads = 0;
  bool json = false;
  bool breakdown = false;
  std::string emit_dir;
  std::string output;
  std::string calibration;
  SimFlags sim;
};

// The measured pieces of a calibrated profile, when its settings and shapes are the plan's. Its
// tensor parallelism and micro-batch size become the plan's when their flags are absent, and
// recompute stays as given (none by default): the times hold for what was measured only.
MeasuredPieces measured_pieces(const std::string& path, ModelInput& in, SearchedSettings& searched) {
  const CalibratedProfile cal = calibrated_profile_from_json(parse_json(read_text_file(path), path), path);
  const TrainingSettings& m = cal.training;
  if (searched.tp) in.training.tp = m.tp;
  if (searched.micro_batch) in.training.micro_batch = m.micro_batch;
  if (in.training.cp > 1) {
    throw UsageError("--calibration " + path + ": measured without context parallelism; --cp " +
                     std::to_string(in.training.cp) + " is not what was measured");
  }
  searched.tp = searched.micro_batch = searched.recompute = searched.cp = false;
  const TrainingSettings& p = in.training;
  if (p.fp8) {  // calibrate times bf16, fp16 or fp32 products only
    throw UsageError("--calibration " + path + ": measured with " + std::string(dtype_name(m.dtype)) +
                     " GEMMs; --dtype fp8 would take their times for FP8 ones (give no --calibration)");
  }
  if (m.seq != p.seq || m.micro_batch != p.micro_batch || m.dtype != p.dtype || m.tp != p.tp ||
      m.flash_attention != p.flash_attention) {
    throw UsageError(
        fmt::format("--calibration {}: measured with seq {}, micro-batch {}, {}, tp {}, {}; the plan asks "
                    "seq {}, micro-batch {}, {}, tp {}, {}",
                    path, m.seq, m.micro_batch, dtype_name(m.dtype), m.tp,
                    m.flash_attention ? "flash attention" : "no flash attention", p.seq, p.micro_batch,
                    dtype_name(p.dtype), p.tp, p.flash_attention ? "flash attention" : "no flash attention"));
  }
  const ModelConfig& a = cal.model;
  const ModelConfig& b = in.model;
  if (a.hidden != b.hidden || a.ffn != b.ffn || a.heads != b.heads || a.kv_heads != b.kv_heads || a.vocab != b.vocab ||
      a.gated_mlp != b.gated_mlp) {
    throw UsageError("--calibration " + path + ": measured on another model's shapes than --model's");
  }
  return cal.pieces;
}

// "planning: 120 / 480 configurations" on stderr, redrawn in place, once the search has run
// for a second and only when stderr is a terminal.
class Progress {
 public:
  void operator()(std::size_t done, std::size_t total) {
    if (!terminal_ || std::chrono::steady_clock::now() - start_ < std::chrono::seconds(1)) return;
    std::fprintf(stderr, "\rplanning: %zu / %zu configurations", done, total);
    shown_ = true;
  }
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }
  Progress() = default;
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

 private:
  bool terminal_ = isatty(STDERR_FILENO) != 0;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void write_winner(const PlanRequest& request, const PlanRow& row, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("--emit-schedule " + dir + ": cannot create the directory: " + ec.message());
  const PlannedRun run = rebuild_row(request, row);
  emit(dir + "/profile.json",
       to_json_text(analytic_profile_to_json(run.profile.costs, plan_row_title(row),
                                             "pipeplan plan: analytic estimate (docs/costs.md)")));
  emit(dir + "/schedule.json", schedule_json_text(run.schedule));
}

}  // namespace

Runner add_plan(CLI::App& sub) {
  auto o = std::make_shared<PlanOptions>();
  add_model_options(sub, o->model, true);
  sub.add_option("--gpus", o->gpus, "GPUs of the job: tensor x context x pipeline x data parallelism")
      ->type_name("N")
      ->required()
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--memory-limit", o->memory_limit, "Per-GPU memory limit, above 0 (default: the card's memory)")
      ->type_name("SIZE");
  sub.add_option("--memory-reserve", o->memory_reserve,
                 "Memory kept off the limit for what the runtime holds beside the tensors: the CUDA context, "
                 "NCCL's buffers (default 1GiB)")
      ->type_name("SIZE");
  sub.add_option("--schedules", o->schedules,
                 fmt::format("Generators to try, comma-separated (default {}; and dualpipev for a mixture of experts)",
                             fmt::join(default_plan_schedules(), ",")))
      ->delimiter(',')
      ->type_name("A,B,...");
  sub.add_option("--layout", o->layout,
                 "Use this layout (E,t*N|...|t*N,H, or Megatron's Et*N|...|t*NL), or 'even' / 'padded' (Megatron's "
                 "splits) for every stage count")
      ->type_name("LAYOUT");
  sub.add_option("--top", o->top, "Rows to show")->type_name("K")->check(CLI::Range(1, 1000))->capture_default_str();
  sub.add_option("--pp", o->pp, "Only this pipeline degree (default: every one dividing the GPUs over tp)")
      ->type_name("P")
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--chunks", o->chunks,
                 "Only this many chunks per device, and only the schedules that take it (default: each "
                 "schedule's own, or 2 to --max-chunks)")
      ->type_name("V")
      ->check(CLI::Range(1, 64));
  sub.add_option("--max-chunks", o->max_chunks,
                 "Most chunks per device tried for the interleaved and automatic schedules")
      ->type_name("V")
      ->check(CLI::Range(2, 16))
      ->capture_default_str();
  sub.add_option(
         "--microbatches", o->microbatches,
         "Only configurations with M micro-batches per step (default: any; M = global batch / (dp x micro-batch))")
      ->type_name("M")
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--threads", o->threads, "Threads (default: every core)")->type_name("N")->check(CLI::Range(1, 1024));
  sub.add_flag("--json", o->json, "Print every row as JSON: {\"rows\": [...]}");
  sub.add_option("-o,--output", o->output, "Also write the JSON rows to this file")
      ->type_name("FILE")
      ->check(file_name());
  sub.add_option(
         "--calibration", o->calibration,
         "A profile from 'pipeplan-gpu calibrate': its measured layer, head and embedding times replace the estimates")
      ->type_name("FILE")
      ->check(file_name());
  add_sim_options(sub, o->sim);
  o->sim.iterations = 0;  // unset: chosen by the mode below
  sub.get_option("--iterations")
      ->description(
          "Steps simulated back to back (default 1 under sync; 3 under post-validation, whose gain is in the steady "
          "state)");
  sub.add_flag("--breakdown", o->breakdown,
               "Say where each shown row's step goes (GEMMs, attention, element-wise, each kind of communication, "
               "bubble, optimizer), on its busiest device; with --json, a \"breakdown\" object in each row");
  sub.add_option("--emit-schedule", o->emit_dir, "Write the winner's schedule.json and profile.json into DIR")
      ->type_name("DIR")
      ->check(file_name());
  return [o, app = &sub] {
    const std::string emitted = o->emit_dir.empty() ? "" : o->emit_dir + "/";
    check_file_roles({{"--model", o->model.model},
                      {"--calibration", o->calibration},
                      {"-o", o->output, true},
                      {"--emit-schedule", emitted.empty() ? "" : emitted + "profile.json", true},
                      {"--emit-schedule", emitted.empty() ? "" : emitted + "schedule.json", true}});
    ModelInput in = read_model_input(o->model);
    SearchedSettings searched = searched_settings(o->model);
    if (!searched.tp && o->gpus % in.training.tp != 0) {  // flags that contradict each other: a usage error
      throw UsageError(fmt::format("--gpus {}: must be a multiple of --tp {}", o->gpus, in.training.tp));
    }
    if (!searched.cp && o->gpus % in.training.cp != 0) {
      throw UsageError(fmt::format("--gpus {}: must be a multiple of --cp {}", o->gpus, in.training.cp));
    }
    PlanRequest request;
    if (!o->calibration.empty()) {
      // Calibration times a dense layer's GEMMs; a mixture of experts' routed layer is not measured.
      if (in.model.is_moe())
        throw Error("--calibration: " + o->model.model +
                    " is a mixture of experts, whose layers pipeplan-gpu calibrate does not measure");
      request.measured = measured_pieces(o->calibration, in, searched);
    }
    request.model = in.model;
    request.training = in.training;
    request.precisions = in.precisions;
    request.search = searched;
    request.microbatches = o->microbatches;
    // Rows beyond --top need not be ranked exactly; --json and -o list every row simulated.
    request.top = std::size_t(o->top);
    request.gpu = in.gpu;
    request.efficiency = in.efficiency;
    request.gpus = o->gpus;
    request.gpus_per_node = o->model.gpus_per_node;
    if (in.rank_order_given) request.rank_order = in.rank_order;
    // Given, the limit is what it says: 0 bytes (or an empty value) once meant the card's memory
    // here where generate and validate take 0 as 0 bytes; no configuration fits in none.
    if (app->count("--memory-limit") > 0) {
      request.memory_limit = parse_size_flag(o->memory_limit, "--memory-limit");
      if (request.memory_limit == 0) {
        throw UsageError(
            "--memory-limit: expected a size above 0 (no configuration fits in 0 bytes; leave the flag "
            "out for the card's memory), got '" +
            o->memory_limit + "'");
      }
    }
    request.memory_reserve =
        o->memory_reserve.empty() ? kRuntimeMemoryReserve : parse_size_flag(o->memory_reserve, "--memory-reserve");
    const Bytes card = request.memory_limit > 0 ? request.memory_limit : in.gpu->memory_bytes;
    if (request.memory_reserve >= card) {
      throw UsageError("--memory-reserve " + format_size(request.memory_reserve) + ": leaves nothing of the " +
                       format_size(card) + " limit");
    }
    request.schedules = o->schedules.empty() ? default_plan_schedules(in.model) : o->schedules;
    for (const std::string& name : request.schedules) (void)generator_named(name);
    if (!o->layout.empty()) {
      try {
        if (!is_layout_keyword(o->layout)) (void)parse_layout(o->layout, in.model.layers, "--layout");
      } catch (const Error& e) {
        throw UsageError(e.what());
      }
      request.layout = o->layout;
    }
    request.pp = o->pp;
    request.chunks = o->chunks;
    request.max_chunks = o->max_chunks;
    // The automatic schedules search with a quarter of their budget while the configurations are
    // ranked, then the rows shown with all of it (PlanRequest::search_budget): the same top rows
    // in a third of the time on Llama-3-70B and Mixtral on 64 H100 (docs/performance.md).
    request.search_budget = ScheduleSearch::kDefaultBudget / 4;
    request.threads = o->threads;
    SimFlags sim = o->sim;
    if (sim.iterations == 0) sim.iterations = sim.optimizer_mode == "sync" ? 1 : 3;
    request.optimizer_mode = sim_options(sim).optimizer_mode;
    request.iterations = sim.iterations;
    PlanOutcome outcome;
    {
      Progress progress;
      outcome = plan(request, [&progress](std::size_t done, std::size_t total) { progress(done, total); });
    }
    if (!o->emit_dir.empty()) {
      if (outcome.rows.empty()) throw Error("--emit-schedule: no configuration fits in memory, nothing to write");
      write_winner(request, outcome.rows.front(), o->emit_dir);
    }
    if (!o->breakdown) {  // the rows' JSON stays as it was unless asked
      for (PlanRow& row : outcome.rows) row.breakdown.reset();
    }
    const std::string json = to_json_text(plan_to_json(outcome));
    if (!o->output.empty()) emit(o->output, json);
    emit("", o->json ? json
                     : describe_input(in, &searched) +
                           fmt::format(", global batch {}, {} GPUs, ranks {}, {} of {} per GPU for the model ({} "
                                       "kept for the runtime)\n",
                                       in.training.global_batch, o->gpus,
                                       request.rank_order ? rank_order_name(*request.rank_order) : "searched",
                                       format_size(card - request.memory_reserve), format_size(card),
                                       format_size(request.memory_reserve)) +
                           plan_text(outcome, std::size_t(o->top)) +
                           (o->breakdown ? plan_breakdown_text(outcome, std::size_t(o->top)) : std::string()));
    return outcome.rows.empty() ? kExitInvalid : kExitOk;
  };
}

}  // namespace pipeplan::cli
