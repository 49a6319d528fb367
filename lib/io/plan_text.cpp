#include "io/plan_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "model/size_string.hpp"

namespace pipeplan {

std::string recompute_text(const PlanRow& r) {
  std::string text(recompute_name(r.recompute));
  if (r.recompute_layers > 0) text += fmt::format(", block {}", r.recompute_layers);
  return text;
}

std::string plan_row_title(const PlanRow& r) {
  return fmt::format(
      "{}, pp {} x {} chunks, dp {}, tp {}{}{}{}, ranks {}, micro-batch {}, recompute {}, sharding {}, {} "
      "micro-batches, layout {}",
      r.schedule, r.pp, r.chunks, r.dp, r.tp, r.cp > 1 ? fmt::format(", cp {}", r.cp) : "",
      r.ep > 1 ? fmt::format(", ep {}", r.ep) : "", r.etp != r.tp ? fmt::format(", etp {}", r.etp) : "",
      rank_order_name(r.rank_order), r.micro_batch, recompute_text(r), sharding_name(r.sharding), r.microbatches,
      r.layout);
}

std::string plan_breakdown_text(const PlanOutcome& outcome, std::size_t top) {
  std::string text;
  for (std::size_t i = 0; i < outcome.rows.size() && i < top; ++i) {
    const PlanRow& r = outcome.rows[i];
    if (!r.breakdown) continue;
    const StepBreakdown& b = *r.breakdown;
    text += fmt::format("row {}: where the step goes on device {}, the busiest{}\n", i + 1, b.device,
                        b.measured ? " (measured piece times: the layers in one line)" : "");
    const auto line = [&](const char* name, double ms) {
      if (std::abs(ms) < 5e-4) ms = 0.0;  // the simulator's whole nanoseconds: no "-0.000"
      const double share = b.step_ms > 0 ? 100.0 * ms / b.step_ms : 0.0;
      text += fmt::format("  {:<44} {:>12.3f} ms {:>6.1f}%\n", name, ms, share);
    };
    line("matrix products (GEMMs, experts, router)", b.layers.products);
    line("attention core", b.layers.attention);
    line("element-wise and norm kernels, FP8 casts", b.layers.elementwise);
    line("tensor-parallel collectives", b.layers.tensor_comm);
    line("context-parallel ring, exposed", b.layers.context_comm);
    line("expert all-to-alls, exposed", b.layers.expert_comm);
    line("FSDP / ZeRO-2 collectives, exposed", b.layers.sharding_comm);
    if (b.layers.offload > 0) line("activation offload copies, exposed", b.layers.offload);
    if (b.layers.host > 0) line("host kernel launches, exposed", b.layers.host);
    line("embedding, head and loss", b.embedding_head_ms);
    if (b.overlap_ms < -5e-4) line("hidden by overlapped forward and backward", b.overlap_ms);
    line("bubble and waits for other devices", b.idle_ms);
    line("optimizer step", b.optimizer_ms);
    line("data-parallel collectives, exposed", b.data_parallel_ms);
    line("step", b.step_ms);
  }
  return text;
}

std::string plan_summary_text(const PlanOutcome& outcome, const std::function<std::string(const PlanRow&)>& title) {
  int refused = 0;
  for (const auto& [reason, count] : outcome.refused) refused += count;
  std::string text = fmt::format("{} configurations: {} within memory, {} over memory, {} refused, {} skipped\n",
                                 outcome.considered, outcome.rows.size() + std::size_t(outcome.merged),
                                 outcome.over_memory.size(), refused, outcome.skipped);
  if (outcome.skipped > 0) {
    text +=
        "  skipped: a lighter recompute or sharding fits at balanced stages, a block of full recompute keeps more "
        "than\n"
        "      full recompute on every layer, which does not fit, or the step's lower bound cannot reach the top\n";
  }
  if (outcome.merged > 0)
    text += fmt::format(
        "  {} rows identical to a row shown (the same step and peak under another schedule) are merged into it\n",
        outcome.merged);
  if (!outcome.over_memory.empty()) {
    const PlanRow& closest = outcome.over_memory.front();
    text += fmt::format("  closest over memory: {} needs {}{} on its fullest device, the limit is {}\n", title(closest),
                        closest.estimated ? "at least " : "", format_size(closest.max_peak()),
                        format_size(closest.memory_limit));
  }
  std::vector<std::pair<std::string, int>> reasons(outcome.refused.begin(), outcome.refused.end());
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (std::size_t i = 0; i < reasons.size() && i < 3; ++i) {
    const auto example = outcome.refused_example.find(reasons[i].first);
    text += fmt::format("  refused {}x: {}{}\n", reasons[i].second, reasons[i].first,
                        example == outcome.refused_example.end() ? "" : " (first: " + example->second + ")");
  }
  if (reasons.size() > 3) text += fmt::format("  ... and {} other reasons (--json lists them)\n", reasons.size() - 3);
  // Nothing to show, for its own reason: none to try (the fixed degrees leave no layout: --pp
  // 64 on 32 layers once read "no configuration fits in memory"), every one refused, or over
  // memory.
  if (outcome.rows.empty() && outcome.considered == 0) {
    return text +
           "no configuration to try: the degrees given (--pp, --tp, --cp, --ep) leave none for this model and "
           "these GPUs (a stage needs at least one of the model's pieces)\n";
  }
  if (outcome.rows.empty() && outcome.over_memory.empty() && outcome.skipped == 0) {
    return text + "no configuration can run: every one was refused (the reasons above)\n";
  }
  if (outcome.rows.empty()) return text + "no configuration fits in memory\n";
  return text;
}

std::string plan_text(const PlanOutcome& outcome, std::size_t top) {
  std::string text = plan_summary_text(outcome, plan_row_title);
  if (outcome.rows.empty()) return text;
  // A mixture of experts' rows show their expert parallelism and expert tensor parallelism after
  // cp; a dense model has neither.
  const auto ep = [&](const std::string& cell, const std::string& etp) {
    return outcome.experts ? fmt::format(" {:>3} {:>3}", cell, etp) : std::string();
  };
  // Several precisions tried: each row says its own after the sharding.
  const auto precision = [&](const std::string& cell) {
    return outcome.precisions ? fmt::format(" {:<15}", cell) : std::string();
  };
  // The rank order each row ran under (the faster of those tried): tp-dp-pp or tp-pp-dp.
  text += fmt::format(
      "{:>3}  {:<11} {:>4} {:>3} {:>3} {:>3}{} {:<8} {:>2} {:>5} {:>3} {:<9} {:<9}{}  {:>10} {:>7}  {:>21}  {:>12} "
      "{:>6} "
      " "
      "{}\n",
      "#", "schedule", "pp", "dp", "tp", "cp", ep("ep", "etp"), "ranks", "V", "M", "mb", "recompute", "sharding",
      precision("precision"), "step ms", "bubble", "peak / limit", "tokens/s/GPU", "MFU", "layout");
  for (std::size_t i = 0; i < outcome.rows.size() && i < top; ++i) {
    const PlanRow& r = outcome.rows[i];
    text += fmt::format(
        "{:>3}  {:<11} {:>4} {:>3} {:>3} {:>3}{} {:<8} {:>2} {:>5} {:>3} {:<9} {:<9}{}  {:>10.3f} {:>6.1f}%  {:>21}  "
        "{:>12.1f} {:>5.1f}%  {}\n",
        i + 1, r.schedule, r.pp, r.dp, r.tp, r.cp, ep(std::to_string(r.ep), std::to_string(r.etp)),
        rank_order_name(r.rank_order), r.chunks, r.microbatches, r.micro_batch, recompute_text(r),
        sharding_name(r.sharding), precision(precision_name(r.precision)), r.step_ms, 100.0 * r.bubble_rate,
        format_size(r.max_peak()) + " / " + format_size(r.memory_limit), r.tokens_per_s_per_gpu, 100.0 * r.mfu,
        r.layout);
  }
  return text;
}

}  // namespace pipeplan
