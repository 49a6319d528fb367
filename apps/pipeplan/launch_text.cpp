#include "launch_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "io/plan_glance.hpp"
#include "io/plan_text.hpp"
#include "model/size_string.hpp"

namespace pipeplan::cli {

namespace {

// Every line of `text` as a comment, within 120 columns.
std::string comment(const std::string& text) {
  std::string out;
  const std::string wrapped = wrap_lines(text + "\n", kGlanceWidth - 2);
  std::size_t start = 0;
  while (start < wrapped.size()) {
    const std::size_t end = wrapped.find('\n', start);
    out += "# " + wrapped.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// A value as one shell word: single-quoted unless every character is safe bare
// (a Megatron layout holds '|', '*' and parentheses).
std::string shell_word(const std::string& value) {
  const bool bare = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-' || c == '/' || c == ',';
  });
  return bare ? value : "'" + value + "'";
}

std::string predicted(const LaunchPlan& launch, const PlanRow& row) {
  if (launch.closest) {
    const PlanRow& c = *launch.closest;
    return fmt::format(
        "what this runs, simulated as plan simulates its rows: step {:.1f} ms (the row's {:.1f} ms), {:.1f} "
        "tokens/s/GPU "
        "(the row's {:.1f}), peak {} of {}{}",
        c.step_ms, row.step_ms, c.tokens_per_s_per_gpu, row.tokens_per_s_per_gpu, format_size(c.max_peak()),
        format_size(c.memory_limit), c.max_peak() > c.memory_limit ? ": over memory" : "");
  }
  if (!launch.closest_refusal.empty()) return "what this runs is not simulated: " + launch.closest_refusal;
  return "";
}

// The row's title with its layout compressed (the settings below carry it in full).
std::string titled(const PlanRow& row) {
  PlanRow shown = row;
  shown.layout = compressed_layout(row.layout);
  return plan_row_title(shown);
}

std::string header(const LaunchPlan& launch, const PlanRow& row, std::size_t number) {
  const bool megatron = launch.framework == Framework::Megatron;
  std::string text = comment(fmt::format("{} for row {} of pipeplan plan: {}; step {:.1f} ms, {:.1f} tokens/s/GPU",
                                         megatron ? "Megatron-LM arguments" : "torchtitan job config", number,
                                         titled(row), row.step_ms, row.tokens_per_s_per_gpu));
  text += comment(megatron ? fmt::format("flags as NVIDIA/Megatron-LM {} reads them (docs/launch.md); the model's "
                                         "own (--num-layers, --hidden-size, ...), the data's and the optimizer's are "
                                         "yours; world size {} = tp x cp x pp x dp",
                                         kMegatronCommit.substr(0, 12), row.tp * row.cp * row.pp * row.dp)
                           : fmt::format("keys as pytorch/torchtitan v0.2.2 ({}) reads them, schedules as PyTorch {} "
                                         "names them (docs/launch.md); merge these tables into a config with your "
                                         "[job], [model] name and flavor, [optimizer] and data; NGPU={}",
                                         kTorchtitanCommit.substr(0, 12), kPytorchCommit.substr(0, 12),
                                         row.tp * row.cp * row.pp * row.dp));
  for (const std::string& gap : launch.gaps) text += comment("not as planned: " + gap);
  if (const std::string p = predicted(launch, row); !p.empty()) text += comment(p);
  for (const std::string& note : launch.notes) text += comment(note);
  return text;
}

std::string megatron_arguments(const LaunchPlan& launch) {
  std::string out;
  for (std::size_t i = 0; i < launch.settings.size(); ++i) {
    const LaunchSetting& s = launch.settings[i];
    out += s.name + (s.value.empty() ? "" : " " + (s.words ? s.value : shell_word(s.value))) +
           (i + 1 < launch.settings.size() ? " \\\n" : "\n");
  }
  return out;
}

std::string toml_tables(const LaunchPlan& launch) {
  std::string out;
  std::string table;
  for (const LaunchSetting& s : launch.settings) {
    const std::size_t dot = s.name.rfind('.');
    const std::string here = s.name.substr(0, dot);
    if (here != table) {
      out += (out.empty() ? "" : "\n") + ("[" + here + "]\n");
      table = here;
    }
    out += s.name.substr(dot + 1) + " = " + s.value + "\n";
  }
  return out;
}

}  // namespace

std::string launch_text(const LaunchPlan& launch, const PlanRow& row, std::size_t number) {
  return header(launch, row, number) +
         (launch.framework == Framework::Megatron ? megatron_arguments(launch) : toml_tables(launch));
}

}  // namespace pipeplan::cli
