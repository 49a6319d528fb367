#include <doctest/doctest.h>

#include <string>

#include "io/plan_glance.hpp"
#include "io/plan_text.hpp"

using namespace pipeplan;

namespace {

std::size_t widest(const std::string& text) {
  std::size_t most = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    most = std::max(most, end - start);
    start = end + 1;
  }
  return most;
}

PlanRow row_with(double step_ms, double idle_ms, double products_ms, double tensor_ms) {
  PlanRow row;
  row.schedule = "zbh1";
  row.pp = 2;
  row.dp = 4;
  row.tp = 8;
  row.layout = "E,t*5|t*5|t*5|t*6|t*4,H";
  row.step_ms = step_ms;
  row.bubble_rate = idle_ms / step_ms;
  row.peak_memory = {Bytes{40} << 30, Bytes{30} << 30};
  row.memory_limit = Bytes{78} << 30;
  StepBreakdown b;
  b.idle_ms = idle_ms;
  b.layers.products = products_ms;
  b.layers.tensor_comm = tensor_ms;
  b.step_ms = step_ms;
  row.breakdown = b;
  return row;
}

}  // namespace

TEST_CASE("runs of equal stages are written once with their count") {
  CHECK(compressed_layout("E,t*5|t*5|t*5|t*6|t*4,H") == "E,t*5 | t*5 x2 | t*6 | t*4,H");
  // Llama-3.1-405B's 126 layers on 16 x 1 stages as the planner balances them: 14 of 8 between.
  std::string layout = "E,t*7";
  for (int s = 0; s < 14; ++s) layout += "|t*8";
  layout += "|t*7,H";
  CHECK(compressed_layout(layout) == "E,t*7 | t*8 x14 | t*7,H");
  CHECK(compressed_layout("E,t*8,H") == "E,t*8,H");
  CHECK(compressed_layout("E,t|t|t,H") == "E,t | t | t,H");  // the last stage differs: H
}

TEST_CASE("a layout summed up in layers per stage") {
  CHECK(layout_summary("E,t*5|t*5|t*5|t*6|t*4,H") == "4-6 layers/stage");
  CHECK(layout_summary("E,t*2|t*2,H") == "2 layers/stage");
  CHECK(layout_summary("E,t|t,H") == "1 layer/stage");
  CHECK(layout_summary("E|t*3|t*3|H") == "0-3 layers/stage");
}

TEST_CASE("long lines wrap at spaces under their indent") {
  CHECK(wrap_lines("short\n", 10) == "short\n");
  CHECK(wrap_lines("  aaaa bbbb cccc\n", 12) == "  aaaa bbbb\n      cccc\n");
  // A word longer than the room is cut; the continuation is indented 4 past the line's own.
  CHECK(wrap_lines("abcdefghijkl\n", 8) == "abcdefgh\n    ijkl\n");
  CHECK(wrap_lines("a\n\nb", 8) == "a\n\nb");
}

TEST_CASE("why the first row wins: the breakdown line that grows most") {
  // Row 2's step is 10 ms longer: its bubble 8 ms more, its tensor collectives 2 ms.
  const PlanRow first = row_with(100, 10, 80, 10);
  const PlanRow second = row_with(110, 18, 80, 12);
  CHECK(row_contrast(first, second) ==
        "why row 1 first: row 2's step is 10.0 ms (10.0%) longer, the most from bubble and waits (16.4% against "
        "10.0%), +8.0 ms\n");
  // Exposed communication: +9 ms of tensor collectives, +1 ms of bubble.
  CHECK(row_contrast(first, row_with(110, 11, 80, 19)) ==
        "why row 1 first: row 2's step is 10.0 ms (10.0%) longer, the most from exposed tensor-parallel collectives, "
        "+9.0 ms\n");
  // More compute from recompute is memory's price.
  PlanRow recomputing = row_with(130, 10, 110, 10);
  recomputing.recompute = Recompute::Full;
  CHECK(row_contrast(first, recomputing).find("compute for memory (it recomputes, full, to fit), +30.0 ms") !=
        std::string::npos);
  CHECK(row_contrast(first, PlanRow{}).empty());  // no breakdown to read
}

TEST_CASE("the table at a glance keeps every line within 120 columns") {
  PlanOutcome outcome;
  outcome.considered = 3;
  std::string layout = "E,t*7";
  for (int s = 0; s < 14; ++s) layout += "|t*8";
  layout += "|t*7,H";
  for (int i = 0; i < 3; ++i) {
    PlanRow row = row_with(100 + i, 10 + i, 80, 10);
    row.layout = layout;
    row.dp = 1024;
    outcome.rows.push_back(row);
  }
  outcome.over_memory.push_back(outcome.rows[0]);
  outcome.experts = true;
  outcome.precisions = true;
  const std::string glance = plan_glance_text(outcome, 3);
  CHECK(widest(glance) <= kGlanceWidth);
  CHECK(glance.find("why row 1 first: row 2's step is 1.0 ms") != std::string::npos);
  CHECK(widest(plan_text(outcome, 3)) > kGlanceWidth);  // --wide: the layout spelled out
}
