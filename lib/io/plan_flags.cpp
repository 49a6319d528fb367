#include "io/plan_flags.hpp"

#include <fmt/format.h>

#include <tuple>

#include "calibrate/measured_pieces.hpp"
#include "estimate/megatron_layout.hpp"
#include "io/calibrated_profile_json.hpp"
#include "io/cost_flags.hpp"
#include "io/generate_request.hpp"
#include "io/json_text.hpp"
#include "io/read_file.hpp"
#include "io/run_flags.hpp"
#include "model/error.hpp"
#include "model/name_fold.hpp"
#include "model/size_string.hpp"
#include "plan/planner.hpp"
#include "schedules/zb_search.hpp"

namespace pipeplan {

namespace {

// The measured pieces of a calibrated profile, when its settings and shapes are the plan's. Its
// tensor parallelism and micro-batch size become the plan's when their flags are absent, and
// recompute stays as given (none by default): the times hold for what was measured only.
MeasuredPieces measured_pieces(const std::string& path, ModelInput& in, SearchedSettings& searched) {
  const CalibratedProfile cal = calibrated_profile_from_json(parse_json(read_text_file(path), path), path);
  const TrainingSettings& m = cal.training;
  if (searched.tp) in.training.tp = m.tp;
  if (searched.micro_batch) in.training.micro_batch = m.micro_batch;
  if (in.training.cp > 1) {
    throw FlagError("--calibration " + path + ": measured without context parallelism; --cp " +
                    std::to_string(in.training.cp) + " is not what was measured");
  }
  searched.tp = searched.micro_batch = searched.recompute = searched.cp = false;
  const TrainingSettings& p = in.training;
  if (p.fp8) {  // calibrate times bf16, fp16 or fp32 products only
    throw FlagError("--calibration " + path + ": measured with " + std::string(dtype_name(m.dtype)) +
                    " GEMMs; --dtype fp8 would take their times for FP8 ones (give no --calibration)");
  }
  if (m.seq != p.seq || m.micro_batch != p.micro_batch || m.dtype != p.dtype || m.tp != p.tp ||
      m.flash_attention != p.flash_attention) {
    throw FlagError(
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
    throw FlagError("--calibration " + path + ": measured on another model's shapes than --model's");
  }
  return cal.pieces;
}

}  // namespace

PlanRequest plan_request_for(ModelInput& in, SearchedSettings& searched, const ModelFlags& model,
                             const PlanFlags& flags) {
  const PlanFlags* o = &flags;
  // The command line's CLI::Range checks, for the callers that have none (Python); 0 is unset.
  for (const auto& [flag, value, least, most] :
       {std::tuple{"--gpus", o->gpus, 1, 1 << 20}, std::tuple{"--top", o->top, 1, 1000},
        std::tuple{"--max-chunks", o->max_chunks, 2, 16}, std::tuple{"--pp", o->pp, 0, 1 << 20},
        std::tuple{"--chunks", o->chunks, 0, 64}, std::tuple{"--microbatches", o->microbatches, 0, 1 << 20},
        std::tuple{"--threads", o->threads, 0, 1024}}) {
    if (value < least || value > most) {
      throw FlagError(fmt::format("{}: expected {} to {}, got {}", flag, least, most, value));
    }
  }
  if (!searched.tp && o->gpus % in.training.tp != 0) {  // flags that contradict each other: a usage error
    throw FlagError(fmt::format("--gpus {}: must be a multiple of --tp {}", o->gpus, in.training.tp));
  }
  if (!searched.cp && o->gpus % in.training.cp != 0) {
    throw FlagError(fmt::format("--gpus {}: must be a multiple of --cp {}", o->gpus, in.training.cp));
  }
  PlanRequest request;
  if (!o->calibration.empty()) {
    // Calibration times a dense layer's GEMMs; a mixture of experts' routed layer is not measured.
    if (in.model.is_moe())
      throw Error("--calibration: " + model.model +
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
  request.gpus_per_node = model.gpus_per_node;
  if (in.rank_order_given) request.rank_order = in.rank_order;
  // Given, the limit is what it says: 0 bytes (or an empty value) once meant the card's memory
  // here where generate and validate take 0 as 0 bytes; no configuration fits in none.
  if (o->memory_limit_given || !o->memory_limit.empty()) {
    request.memory_limit = parse_size_flag(o->memory_limit, "--memory-limit");
    if (request.memory_limit == 0) {
      throw FlagError(
          "--memory-limit: expected a size above 0 (no configuration fits in 0 bytes; leave the flag out for the "
          "card's memory), got '" +
          o->memory_limit + "'");
    }
  }
  request.memory_reserve =
      o->memory_reserve.empty() ? kRuntimeMemoryReserve : parse_size_flag(o->memory_reserve, "--memory-reserve");
  const Bytes card = request.memory_limit > 0 ? request.memory_limit : in.gpu->memory_bytes;
  if (request.memory_reserve >= card) {
    throw FlagError("--memory-reserve " + format_size(request.memory_reserve) + ": leaves nothing of the " +
                    format_size(card) + " limit");
  }
  request.schedules = o->schedules.empty() ? default_plan_schedules(in.model) : o->schedules;
  for (const std::string& name : request.schedules) (void)generator_named(name);
  if (!o->layout.empty()) {
    try {
      if (!is_layout_keyword(o->layout))
        (void)parse_layout(o->layout, in.model.layers, "--layout", in.model.mtp_layers);
    } catch (const Error& e) {
      throw FlagError(e.what());
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
  const int iterations = o->iterations != 0 ? o->iterations : (same_name(o->optimizer_mode, "sync") ? 1 : 3);
  const SimOptions sim = sim_options_of(iterations, o->optimizer_mode);
  request.optimizer_mode = sim.optimizer_mode;
  request.iterations = sim.iterations;
  request.comm = comm_mode(o->comm);
  request.policy = comm_policy(o->comm);
  return request;
}

}  // namespace pipeplan
