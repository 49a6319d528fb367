#include "io/text_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

#include "io/lane_raster.hpp"
#include "io/printable.hpp"
#include "sim/critical_path.hpp"

namespace pipeplan {

namespace {

constexpr std::array<char, kOpKindCount> kLetters = {'F', 'B', 'W', 'X', 'O'};
constexpr std::array<const char*, kOpKindCount> kAnsi = {"\x1b[44;97m", "\x1b[42;30m", "\x1b[43;30m", "\x1b[45;97m",
                                                         "\x1b[41;97m"};
constexpr const char* kReset = "\x1b[0m";
constexpr char kCriticalMark = '^';

// The critical path's ops, by device.
std::vector<std::vector<const OpTiming*>> critical_ops_by_device(const Schedule& s, const SimResult& r) {
  std::vector<std::vector<const OpTiming*>> out;
  const auto path = critical_path(s, r);
  if (path.empty()) return out;
  out.resize(r.devices.size());
  for (const CriticalStep& step : path) out[static_cast<std::size_t>(step.op->device)].push_back(step.op);
  return out;
}

// The row under a device's: a mark under each cell the critical path covers for at least half,
// trailing blanks left off.
std::string critical_row(const std::vector<const OpTiming*>& ops, SimTime end, int columns, int label_width) {
  const auto marked = half_covered_cells(ops, end, columns);
  std::string row(static_cast<std::size_t>(label_width), ' ');
  for (const bool m : marked) row += m ? kCriticalMark : ' ';
  row.erase(row.find_last_not_of(' ') + 1);
  return row + '\n';
}

}  // namespace

std::string text_timeline(const Schedule& s, const SimResult& r, const TextOptions& options) {
  const int label_width = 11;  // "device 12  "
  const int columns = std::max(4, options.width - label_width);
  SimTime end = 1;
  for (const DeviceTimeline& d : r.devices) {
    if (!d.ops.empty()) end = std::max(end, d.ops.back().end);
  }
  std::string out =
      fmt::format("{}: {} devices, {} micro-batches, makespan {:.3f} ms, bubble {:.1f}%\n", printable(s.name),
                  s.devices, s.microbatches, ns_to_ms(r.makespan), 100.0 * r.bubble_rate());
  const auto critical = critical_ops_by_device(s, r);
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    out += fmt::format("device {:<3} ", d);
    const auto cells = lane_cells(r.devices[d], first_stage_of(s, static_cast<int>(d)), end, columns);
    for (const LaneCell& cell : cells) {
      if (!cell.busy) {
        out += '.';
        continue;
      }
      char letter = kLetters[static_cast<std::size_t>(cell.kind)];
      if (cell.later_chunk) letter = static_cast<char>(letter - 'A' + 'a');
      if (options.colour) {
        out += std::string(kAnsi[static_cast<std::size_t>(cell.kind)]) + letter + kReset;
      } else {
        out += letter;
      }
    }
    out += '\n';
    if (!critical.empty()) out += critical_row(critical[d], end, columns, label_width);
  }
  out += fmt::format("{:<{}}0{:>{}}\n", "", label_width, fmt::format("{:.3f} ms", ns_to_ms(end)), columns - 1);
  out +=
      "F forward, B input gradient, W weight gradient, X fused backward, O overlapped F and backward; lower "
      "case: a later chunk; . idle for at least half of the cell\n";
  if (!critical.empty()) {
    out += fmt::format("{} the critical path (the first iteration's): its ops cover at least half of the cell above\n",
                       kCriticalMark);
  }
  return out;
}

}  // namespace pipeplan
