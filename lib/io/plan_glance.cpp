#include "io/plan_glance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "io/plan_text.hpp"

namespace pipeplan {

namespace {

std::vector<std::string_view> split(std::string_view text, char by) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == by) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// Layers a stage of pipeplan's notation holds: "t" one, "t*N" N, E and H none.
int stage_layers(std::string_view stage) {
  int layers = 0;
  for (std::string_view piece : split(stage, ',')) {
    if (piece == "t") {
      ++layers;
    } else if (piece.starts_with("t*")) {
      int n = 0;
      std::from_chars(piece.data() + 2, piece.data() + piece.size(), n);
      layers += n;
    }
  }
  return layers;
}

// The short names the narrow columns use; the legend under the table spells them out.
std::string_view short_recompute(Recompute r) {
  switch (r) {
    case Recompute::None:
      return "none";
    case Recompute::Selective:
      return "sel";
    case Recompute::Ops:
      return "ops";
    case Recompute::Full:
      return "full";
  }
  return "";
}

std::string_view short_sharding(Sharding s) {
  switch (s) {
    case Sharding::None:
      return "none";
    case Sharding::Optimizer:
      return "opt";
    case Sharding::Gradients:
      return "grads";
    case Sharding::Params:
      return "params";
  }
  return "";
}

// "dp-pp" for tp-dp-pp: tensor parallelism is always innermost.
std::string_view short_ranks(RankOrder order) {
  return order == RankOrder::TpDpPp ? "dp-pp" : "pp-dp";
}

std::string short_precision(const Precision& p) {
  if (!p.fp8) return std::string(dtype_name(p.dtype));
  static constexpr std::array kShort = {"tw", "dl", "bw", "mx"};  // kFp8Recipes' order
  return std::string("fp8-") + kShort[static_cast<std::size_t>(*p.fp8)];
}

std::string gib(Bytes bytes) {
  return fmt::format("{:.1f}", double(bytes) / double(Bytes{1} << 30));
}

// One row's cells but the layout, or the header's two lines, in the same widths: what the
// header says and what a row holds cannot drift apart.
struct Cells {
  std::string number, schedule, pp, dp, tp, cp, ep, ranks, chunks, microbatches, micro_batch, recompute, sharding,
      precision, step, bubble, peak, tokens, mfu;
};

std::string line_of(const Cells& c, const PlanOutcome& outcome) {
  std::string out = fmt::format("{:>2}  {:<11} {:>3} {:>4} {:>2} {:>2}", c.number, c.schedule, c.pp, c.dp, c.tp, c.cp);
  if (outcome.experts) out += fmt::format(" {:>5}", c.ep);
  out += fmt::format(" {:<5} {:>2} {:>4} {:>2} {:<4} {:<6}", c.ranks, c.chunks, c.microbatches, c.micro_batch,
                     c.recompute, c.sharding);
  if (outcome.precisions) out += fmt::format(" {:<6}", c.precision);
  out += fmt::format(" {:>7} {:>6} {:>9} {:>6} {:>4}", c.step, c.bubble, c.peak, c.tokens, c.mfu);
  return out;
}

std::string row_line(std::size_t i, const PlanRow& r, const PlanOutcome& outcome, std::size_t width) {
  const Cells c{
      std::to_string(i + 1),
      r.schedule,
      std::to_string(r.pp),
      std::to_string(r.dp),
      std::to_string(r.tp),
      std::to_string(r.cp),
      fmt::format("{}/{}", r.ep, r.etp),
      std::string(short_ranks(r.rank_order)),
      std::to_string(r.chunks),
      std::to_string(r.microbatches),
      std::to_string(r.micro_batch),
      r.recompute_layers > 0 ? fmt::format("blk{}", r.recompute_layers) : std::string(short_recompute(r.recompute)),
      std::string(short_sharding(r.sharding)),
      short_precision(r.precision),
      fmt::format("{:.1f}", r.step_ms),
      fmt::format("{:.1f}%", 100.0 * r.bubble_rate),
      gib(r.max_peak()) + "/" + gib(r.memory_limit),
      fmt::format("{:.0f}", r.tokens_per_s_per_gpu),
      fmt::format("{:.0f}%", 100.0 * r.mfu)};
  const std::string cells = line_of(c, outcome);
  // The runs when they fit, else the summary, else the runs on a line of their own.
  const std::string runs = compressed_layout(r.layout);
  if (cells.size() + 2 + runs.size() <= width) return cells + "  " + runs + "\n";
  const std::string summary = layout_summary(r.layout);
  if (cells.size() + 2 + summary.size() <= width) return cells + "  " + summary + "\n";
  return cells + "\n" + wrap_lines("    layout " + runs + "\n", width);
}

std::string header(const PlanOutcome& outcome) {
  Cells top{"", "", "", "", "", "", "", "", "", "", "", "", "", "", "step", "", "peak/limit", "tok/s", ""};
  Cells bottom{"#",  "schedule", "pp",    "dp",   "tp", "cp",     "ep/etp", "ranks", "V",  "M",
               "mb", "rc",       "shard", "prec", "ms", "bubble", "GiB",    "/GPU",  "MFU"};
  std::string first = line_of(top, outcome);
  while (!first.empty() && first.back() == ' ') first.pop_back();
  return first + "\n" + line_of(bottom, outcome) + "  layout\n";
}

struct Part {
  const char* what;
  double first, second;
};

}  // namespace

std::string compressed_layout(std::string_view layout) {
  const std::vector<std::string_view> stages = split(layout, '|');
  std::string out;
  for (std::size_t i = 0; i < stages.size();) {
    std::size_t j = i;
    while (j < stages.size() && stages[j] == stages[i]) ++j;
    out += (out.empty() ? "" : " | ") + std::string(stages[i]);
    if (j - i > 1) out += fmt::format(" x{}", j - i);
    i = j;
  }
  return out;
}

std::string layout_summary(std::string_view layout) {
  const std::vector<std::string_view> stages = split(layout, '|');
  int least = 0, most = 0;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const int n = stage_layers(stages[s]);
    least = s == 0 ? n : std::min(least, n);
    most = s == 0 ? n : std::max(most, n);
  }
  const std::string layers = least == most ? std::to_string(least) : fmt::format("{}-{}", least, most);
  return fmt::format("{} layer{}/stage", layers, most == 1 ? "" : "s");
}

std::string row_contrast(const PlanRow& first, const PlanRow& second) {
  if (!first.breakdown || !second.breakdown) return "";
  const StepBreakdown& a = *first.breakdown;
  const StepBreakdown& b = *second.breakdown;
  const double longer = b.step_ms - a.step_ms;
  if (longer <= 0) {
    return fmt::format("why row 1 first: the same step, and row 1 needs less memory ({} against {} GiB)\n",
                       gib(first.max_peak()), gib(second.max_peak()));
  }
  // The lines of the breakdown (step_breakdown.hpp), compute together: their differences add
  // up to the difference of the steps, so the largest is what limits the second row most.
  const std::array parts = {
      Part{"compute", a.layers.products + a.layers.attention + a.layers.elementwise + a.embedding_head_ms,
           b.layers.products + b.layers.attention + b.layers.elementwise + b.embedding_head_ms},
      Part{"bubble", a.idle_ms, b.idle_ms},
      Part{"exposed tensor-parallel collectives", a.layers.tensor_comm, b.layers.tensor_comm},
      Part{"the exposed context-parallel ring", a.layers.context_comm, b.layers.context_comm},
      Part{"exposed expert all-to-alls", a.layers.expert_comm, b.layers.expert_comm},
      Part{"exposed FSDP / ZeRO-2 collectives", a.layers.sharding_comm, b.layers.sharding_comm},
      Part{"exposed activation offload copies", a.layers.offload, b.layers.offload},
      Part{"exposed host kernel launches", a.layers.host, b.layers.host},
      Part{"exposed data-parallel collectives", a.data_parallel_ms, b.data_parallel_ms},
      Part{"less overlapped forward and backward", a.overlap_ms, b.overlap_ms},
      Part{"the optimizer step", a.optimizer_ms, b.optimizer_ms},
  };
  const Part* worst = &parts.front();
  for (const Part& p : parts) {
    if (p.second - p.first > worst->second - worst->first) worst = &p;
  }
  std::string why = worst->what;
  if (worst == &parts[0] && second.recompute > first.recompute) {
    why = fmt::format("compute for memory (it recomputes, {}, to fit)", recompute_name(second.recompute));
  } else if (worst == &parts[0]) {
    why = "compute (more work on its busiest device)";
  } else if (worst == &parts[1]) {
    why = fmt::format("bubble and waits ({:.1f}% against {:.1f}%)", 100.0 * second.bubble_rate,
                      100.0 * first.bubble_rate);
  }
  return fmt::format("why row 1 first: row 2's step is {:.1f} ms ({:.1f}%) longer, the most from {}, +{:.1f} ms\n",
                     longer, 100.0 * longer / a.step_ms, why, worst->second - worst->first);
}

std::string wrap_lines(std::string_view text, std::size_t width) {
  std::vector<std::string_view> lines = split(text, '\n');
  if (!text.empty() && text.back() == '\n') lines.pop_back();  // the empty piece after the last newline
  std::string out;
  for (std::string_view line : lines) {
    if (line.size() <= width) {
      out += std::string(line) + "\n";
      continue;
    }
    std::size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') ++indent;
    const std::string hang(std::min(indent + 4, width / 2), ' ');  // at most half: a cut word always advances
    std::string current(line.substr(0, std::min(indent, width / 2)));
    bool fresh = true;  // nothing after the indent yet
    for (std::string_view word : split(line.substr(indent), ' ')) {
      while (!word.empty()) {
        if (current.size() + (fresh ? 0 : 1) + word.size() <= width) {
          current += (fresh ? "" : " ") + std::string(word);
          fresh = false;
          break;
        }
        if (!fresh) {  // the word goes on the next line
          out += current + "\n";
          current = hang;
          fresh = true;
          continue;
        }
        const std::size_t fits = width - current.size();  // a word wider than a line: cut
        current += word.substr(0, fits);
        word.remove_prefix(fits);
        out += current + "\n";
        current = hang;
      }
    }
    if (!fresh) out += current + "\n";
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

std::string plan_glance_text(const PlanOutcome& outcome, std::size_t top, std::size_t width) {
  const auto title = [](const PlanRow& r) {
    PlanRow shown = r;
    shown.layout = compressed_layout(r.layout);
    return plan_row_title(shown);
  };
  std::string text = wrap_lines(plan_summary_text(outcome, title), width);
  if (outcome.rows.empty()) return text;
  text += header(outcome);
  for (std::size_t i = 0; i < outcome.rows.size() && i < top; ++i) text += row_line(i, outcome.rows[i], outcome, width);
  const bool ops = std::any_of(outcome.rows.begin(), outcome.rows.end(),
                               [](const PlanRow& r) { return r.recompute == Recompute::Ops; });
  const auto shown_end = outcome.rows.begin() + std::ptrdiff_t(std::min(top, outcome.rows.size()));
  const bool block =
      std::any_of(outcome.rows.begin(), shown_end, [](const PlanRow& r) { return r.recompute_layers > 0; });
  // Selective recompute's modules are the request's, one set for every row.
  const auto modules =
      std::find_if(outcome.rows.begin(), shown_end, [](const PlanRow& r) { return r.names_recompute_modules(); });
  const std::string selective = modules == shown_end
                                    ? "the attention core"
                                    : "the modules " + recompute_modules_names(modules->recompute_modules);
  std::string legend = "ranks: the order after tp; rc: recompute (sel: " + selective +
                       (ops ? "; ops: torchtitan's by op" : "") +
                       (block ? "; blkN: full, of each stage's first N layers only" : "") +
                       "); shard: opt ZeRO-1, grads ZeRO-2, params FSDP; layout: equal stages once with xN, or layers "
                       "per stage; --wide or --launch: in full\n";
  if (outcome.rows.size() >= 2 && top >= 2) legend = row_contrast(outcome.rows[0], outcome.rows[1]) + legend;
  return text + wrap_lines(legend, width);
}

}  // namespace pipeplan
