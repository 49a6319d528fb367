#include "plan/plan_evaluate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "estimate/megatron_layout.hpp"
#include "lower/simulate_lowered.hpp"
#include "model/error.hpp"
#include "model/placement.hpp"
#include "plan/launch.hpp"
#include "schedules/expert_overlap_pairs.hpp"
#include "sim/simulator.hpp"

namespace pipeplan {

namespace {

// What the model's tensors may take: the limit (the card's memory unless given) less the reserve.
Bytes memory_limit(const PlanRequest& r) {
  return (r.memory_limit > 0 ? r.memory_limit : r.gpu->memory_bytes) - r.memory_reserve;
}
const MeasuredPieces* measured_of(const PlanRequest& r) {
  return r.measured ? &*r.measured : nullptr;
}
RankGrid grid_of(const PlanRequest& r, const PlanJob& job, const TrainingSettings& tr, RankOrder order) {
  return {tr.tp, job.pp, job.dp, tr.ep, r.node_gpus(), order, tr.cp, tr.etp};
}

// The layouts to try: the given one (or Megatron's even or padded split, when asked by name),
// or the stages balanced by time, then tilted ever more towards lighter first stages
// (balanced_layout), then Megatron's even and padded splits where they divide, without repeats.
std::vector<Layout> layouts_for(const PlanRequest& r, const TrainingSettings& tr, int stages, const GroupLinks& links) {
  if (r.layout && is_layout_keyword(*r.layout)) {
    std::optional<Layout> l = even_layout(stages, r.model.layers, *r.layout == "padded");
    if (!l) {
      throw Error("--layout " + *r.layout + ": " + std::to_string(r.model.layers) +
                  (*r.layout == "padded" ? " layers, the embedding and the loss" : " layers") +
                  " do not split evenly into " + std::to_string(stages) + " stages");
    }
    return {std::move(*l)};
  }
  if (r.layout) return {parse_layout(*r.layout, r.model.layers, "--layout", r.model.mtp_layers)};
  const PieceTotals t = piece_totals(r.model, tr, *r.gpu, r.efficiency, measured_of(r), &links);
  std::vector<Layout> candidates;
  for (double tilt : {0.0, 0.5, 1.0, 2.0}) {
    candidates.push_back(balanced_layout(stages, t.embedding, t.layers, t.head, tilt));
  }
  for (bool padded : {false, true}) {
    if (std::optional<Layout> l = even_layout(stages, r.model.layers, padded)) candidates.push_back(std::move(*l));
  }
  std::vector<Layout> out;
  std::vector<std::string> seen;
  for (Layout& l : candidates) {
    std::string text = layout_string(l);
    if (std::find(seen.begin(), seen.end(), text) != seen.end()) continue;
    seen.push_back(std::move(text));
    out.push_back(std::move(l));
  }
  return out;
}

AnalyticProfile profile_of(const PlanRequest& r, const PlanJob& job, const TrainingSettings& tr, const Layout& layout,
                           const std::vector<int>& placement, RankOrder order) {
  return analytic_profile(r.model, tr, *r.gpu, r.efficiency, layout, {placement, job.pp, job.dp, r.node_gpus(), order},
                          measured_of(r));
}

PlanRow row_of(const PlanRequest& r, const PlanJob& job, const TrainingSettings& tr, const Layout& layout,
               RankOrder order) {
  PlanRow row;
  row.pp = job.pp;
  row.dp = job.dp;
  row.tp = tr.tp;
  row.cp = tr.cp;
  row.ep = tr.ep;
  row.etp = tr.expert_tp();
  row.chunks = job.chunks;
  row.microbatches = job.microbatches;
  row.micro_batch = tr.micro_batch;
  row.recompute = tr.recompute;
  row.recompute_layers = tr.recompute_layers;
  row.recompute_modules = tr.recompute_modules;
  row.precision = {tr.dtype, tr.fp8};
  row.sharding = job.dp * tr.cp > 1 ? tr.sharding : Sharding::None;
  row.rank_order = order;
  row.schedule = std::string(job.generator->name);
  row.layout = layout_string(layout);
  row.megatron_layout = megatron_layout_string(layout, r.model.mtp_layers);
  row.memory_limit = memory_limit(r);
  return row;
}

// The bounds over the placements a generator may choose: the looped one, and the V for 2 chunks.
struct Bounds {
  std::vector<Bytes> memory;  ///< per device, of the placement whose fullest device is lightest
  SimTime step = 0;
};

Bounds bounds_of(const PlanRequest& r, const PlanJob& job, const TrainingSettings& tr, const Layout& layout,
                 RankOrder order) {
  std::vector<std::vector<int>> placements{loop_placement(job.pp, job.chunks)};
  if (job.chunks == 2 && job.pp > 1) placements.push_back(vee_placement(job.pp));
  Bounds out;
  out.step = std::numeric_limits<SimTime>::max();
  Bytes fullest = std::numeric_limits<Bytes>::max();
  for (const std::vector<int>& placement : placements) {
    const AnalyticProfile p = profile_of(r, job, tr, layout, placement, order);
    std::vector<Bytes> memory = memory_lower_bound(p.costs, placement, job.pp);
    const Bytes peak = *std::max_element(memory.begin(), memory.end());
    if (peak < fullest) {
      fullest = peak;
      out.memory = std::move(memory);
    }
    out.step = std::min(out.step, step_bound(p.costs, placement, job.pp, job.microbatches, r.optimizer_mode));
  }
  return out;
}

// The row's schedule timed as the runtime runs its transfers (PlanRequest::comm). Throws Error
// when it deadlocks: the generated order under overlap, its lowering under communication.
SimResult simulate_row(const PlanRequest& r, std::string_view generator, const Schedule& schedule,
                       const CostModel& costs, const SimOptions& options) {
  if (r.comm == CommMode::Overlap) {  // the common case: no copy of the schedule into a lowering
    SimResult result = simulate(schedule, costs, options);
    if (result.deadlocked()) throw Error(std::string(generator) + ": the generated schedule deadlocks");
    return result;
  }
  LoweredRun run = simulate_lowered(LoweredSchedule{schedule, "", {}}, costs, {r.comm, r.policy, options});
  if (!run.run.stuck.empty() || run.run.result.deadlocked()) {
    const std::string mode(comm_mode_name(r.comm));
    const std::string policy(policy_name(r.policy.value_or(LowerPolicy::Timed)));
    throw Error(
        fmt::format("{}: deadlocks under {} communication lowered with {} ('pipeplan validate --comm {} "
                    "--policy {}' lists the stuck devices)",
                    generator, mode, policy, mode, policy));
  }
  return std::move(run.run.result);
}

// The refusal's message, starting with the generator's name once.
std::string refusal(const Generator& g, std::string_view message) {
  const std::string prefix = std::string(g.name) + ":";
  return message.starts_with(prefix) ? std::string(message) : prefix + " " + std::string(message);
}

struct VariantOutcome {
  std::optional<EvaluatedLayout> best;  ///< the fastest layout within memory
  std::optional<PlanRow> closest;       ///< otherwise the least over memory
  std::optional<std::string> refusal;
  bool skipped = false;  ///< a layout's bound could not reach the top
  /// The best is the stages balanced by time (or the layout given): a heavier recompute or
  /// sharding can only be slower. A best that fits only tilted towards lighter first stages may
  /// lose to a heavier variant that fits balanced.
  bool balanced = false;
};

VariantOutcome evaluate_variant(const PlanRequest& r, const PlanJob& job, const MemoryVariant& v, TopSteps& top) {
  const TrainingSettings tr = job_training(r, job, v);
  VariantOutcome out;
  const Bytes limit = memory_limit(r);
  // Each rank order with its own layouts (balanced by the piece times its links give), all
  // competing for the variant's one row: the faster order wins, and a layout of the second whose
  // bound cannot beat the first's best is not simulated. Memory does not depend on the order.
  for (RankOrder order : rank_orders(r, job, tr)) {
    const GroupLinks links = group_links(*r.gpu, grid_of(r, job, tr, order));
    std::vector<Layout> layouts;
    try {
      layouts = layouts_for(r, tr, job.pp * job.chunks, links);
    } catch (const Error& error) {  // --layout even or padded for a stage count they do not divide
      out.refusal = refusal(*job.generator, error.what());
      return out;
    }
    for (std::size_t index = 0; index < layouts.size(); ++index) {
      const Layout& layout = layouts[index];
      try {
        const Bounds bounds = bounds_of(r, job, tr, layout, order);
        const Bytes least = *std::max_element(bounds.memory.begin(), bounds.memory.end());
        if (least > limit) {  // no schedule fits: no need to simulate one
          if (!out.closest || least < out.closest->max_peak()) {
            out.closest = row_of(r, job, tr, layout, order);
            out.closest->peak_memory = bounds.memory;
            out.closest->estimated = true;
          }
          continue;
        }
        const SimTime bar = std::min(top.bar(), out.best ? out.best->step : std::numeric_limits<SimTime>::max());
        if (bounds.step > bar) {
          out.skipped = out.skipped || !out.best;
          continue;
        }
        EvaluatedLayout e = evaluate_layout(r, job, tr, layout, order, r.search_budget);
        if (e.row.max_peak() <= limit) {
          if (!out.best || e.step < out.best->step) {
            out.best = std::move(e);
            out.balanced = index == 0;
          }
        } else if (!out.closest || e.row.max_peak() < out.closest->max_peak()) {
          out.closest = std::move(e.row);
        }
      } catch (const Error& error) {
        if (!out.refusal) out.refusal = refusal(*job.generator, error.what());
      }
    }
  }
  if (out.best) {
    // Under pp 1 the rows of every schedule and chunk count are shown as one (planner.cpp).
    const std::string group = job.pp != 1 ? std::string{}
                                          : fmt::format("{}/{}/{}/{}/{}/{}/{}/{}/{}/{}", job.tp, job.cp, job.dp, job.ep,
                                                        job.micro_batch, job.microbatches, int(tr.recompute),
                                                        int(tr.sharding), int(tr.dtype), tr.fp8 ? int(*tr.fp8) : -1);
    top.add(out.best->step, group);
  }
  return out;
}

}  // namespace

std::vector<RankOrder> rank_orders(const PlanRequest& r, const PlanJob& job, const TrainingSettings& tr) {
  if (r.rank_order) return {*r.rank_order};
  // Megatron refuses expert and context parallelism under --use-tp-pp-dp-mapping (Megatron
  // Bridge: "Make sure EP and CP aren't used with this option enabled").
  if (tr.ep > 1 || tr.cp > 1) return {RankOrder::TpDpPp};
  const RankGrid megatron = grid_of(r, job, tr, RankOrder::TpDpPp);
  const RankGrid stages = grid_of(r, job, tr, RankOrder::TpPpDp);
  // No cost under the faster is higher, so its step is no longer (for the cost-aware generators,
  // whose orders follow the costs, up to their search): the slower need not be simulated.
  if (links_as_fast(megatron, stages)) return {RankOrder::TpDpPp};
  if (links_as_fast(stages, megatron)) return {RankOrder::TpPpDp};
  return {RankOrder::TpDpPp, RankOrder::TpPpDp};
}

EvaluatedLayout evaluate_layout(const PlanRequest& r, const PlanJob& job, const TrainingSettings& tr,
                                const Layout& layout, RankOrder order, long long search_budget) {
  std::vector<int> placement = loop_placement(job.pp, job.chunks);
  AnalyticProfile profile = profile_of(r, job, tr, layout, placement, order);
  GenerateRequest request{job.pp,         job.microbatches,  job.chunks,       0,
                          &profile.costs, {memory_limit(r)}, r.optimizer_mode, r.iterations};
  request.search_budget = search_budget;
  Schedule schedule = job.generator->generate(request);
  if (schedule.placement != placement) {  // a V-shaped schedule: its devices hold other stages
    placement = schedule.placement;
    profile = profile_of(r, job, tr, layout, placement, order);
    request.costs = &profile.costs;
    schedule = job.generator->generate(request);
  }
  // Megatron-Core's expert all-to-all overlap pairs its own schedules' ops (expert_overlap_pairs.hpp),
  // over several stages only with virtual ones (its launch says so for the others).
  if (tr.moe_a2a_overlap && tr.ep > 1 && megatron_runs(schedule.name) && (job.pp == 1 || job.chunks > 1)) {
    schedule = pair_backwards_with_next_forwards(std::move(schedule));
  }
  SimOptions options;
  options.record_timeline = false;
  options.optimizer_mode = r.optimizer_mode;
  options.iterations = r.iterations;
  const SimResult result = simulate_row(r, job.generator->name, schedule, profile.costs, options);

  PlanRow row = row_of(r, job, tr, layout, order);
  row.partial_search = search_budget > 0 && job.generator->uses_costs;
  row.step_ms = ns_to_ms(result.step_time());
  row.bubble_rate = result.bubble_rate();
  for (const DeviceTimeline& d : result.devices) row.peak_memory.push_back(d.peak_memory);
  row.breakdown = step_breakdown(profile, schedule.placement, result, job.microbatches);
  const double step_s = row.step_ms / 1e3;
  const double tokens = double(r.training.global_batch) * r.training.seq;
  row.tokens_per_s_per_gpu = tokens / step_s / r.gpus;
  const double flops = profile.model_flops_per_microbatch * job.microbatches * job.dp;
  row.mfu = flops / step_s / (double(r.gpus) * r.gpu->peak_flops(r.training.dtype));
  return {std::move(schedule), std::move(profile), std::move(row), result.step_time()};
}

JobOutcome evaluate_job(const PlanRequest& r, const PlanJob& job, TopSteps& top) {
  JobOutcome out;
  // Which variants fit at the balanced layout: a heavier one than those is not tried (but by
  // the generators that use the costs, whose schedules may gain from the memory; a block of full
  // recompute, only ever a step towards memory, not by them either). And which were over memory:
  // a block of full recompute keeps more than its full recompute on every layer, which the
  // search tries first (search_space's with_recompute_blocks), so it is not tried past that.
  std::vector<bool> fits(job.variants.size(), false);
  std::vector<bool> over(job.variants.size(), false);
  for (std::size_t i = 0; i < job.variants.size(); ++i) {
    const MemoryVariant& v = job.variants[i];
    bool lighter_fits = false;
    bool lighter_on_memory_over = false;
    for (std::size_t j = 0; j < i; ++j) {
      lighter_fits = lighter_fits || (fits[j] && job.variants[j].at_most(v));
      lighter_on_memory_over = lighter_on_memory_over || (over[j] && v.at_most(job.variants[j]));
    }
    const bool block = v.recompute_layers > 0;
    if ((lighter_fits && (!job.generator->uses_costs || block)) || (block && lighter_on_memory_over)) {
      ++out.skipped;
      continue;
    }
    VariantOutcome o = evaluate_variant(r, job, v, top);
    if (o.best) {
      fits[i] = o.balanced;
      out.rows.push_back(std::move(o.best->row));
    } else if (o.skipped) {
      ++out.skipped;
    } else if (o.closest) {
      over[i] = true;
      out.over_memory.push_back(std::move(*o.closest));
    } else if (o.refusal) {
      out.refusals.emplace_back(job_title(job, v), std::move(*o.refusal));
    }
  }
  return out;
}

}  // namespace pipeplan
