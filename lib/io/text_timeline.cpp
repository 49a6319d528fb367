#include "io/text_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

#include "io/printable.hpp"

namespace pipeplan {

namespace {

constexpr std::array<char, kOpKindCount> kLetters = {'F', 'B', 'W', 'X', 'O'};
constexpr std::array<const char*, kOpKindCount> kAnsi = {"\x1b[44;97m", "\x1b[42;30m", "\x1b[43;30m", "\x1b[45;97m",
                                                         "\x1b[41;97m"};
constexpr const char* kReset = "\x1b[0m";

}  // namespace

std::string text_timeline(const Schedule& s, const SimResult& r, const TextOptions& options) {
  const int label_width = 11;  // "device 12  "
  const int columns = std::max(4, options.width - label_width);
  SimTime end = 1;
  for (const DeviceTimeline& d : r.devices) {
    if (!d.ops.empty()) end = std::max(end, d.ops.back().end);
  }
  std::string out = fmt::format("{}: {} devices, {} micro-batches, makespan {:.3f} ms, bubble {:.1f}%\n",
                                printable(s.name), s.devices, s.microbatches, ns_to_ms(r.makespan), 100.0 * r.bubble_rate());
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    int first_stage = s.stages;
    for (std::size_t st = 0; st < s.placement.size(); ++st) {
      if (s.placement[st] == static_cast<int>(d)) first_stage = std::min(first_stage, static_cast<int>(st));
    }
    // How much of each column each op covers; the op covering most wins it.
    std::vector<SimTime> covered(static_cast<std::size_t>(columns), 0);
    std::vector<const OpTiming*> owner(static_cast<std::size_t>(columns), nullptr);
    for (const OpTiming& t : r.devices[d].ops) {
      const long first = static_cast<long>(static_cast<double>(t.start) / static_cast<double>(end) * columns);
      const long last = static_cast<long>(static_cast<double>(t.end) / static_cast<double>(end) * columns);
      for (long c = std::max(0L, first); c <= std::min<long>(last, columns - 1); ++c) {
        const SimTime lo = std::max(t.start, end * c / columns);
        const SimTime hi = std::min(t.end, end * (c + 1) / columns);
        const auto i = static_cast<std::size_t>(c);
        if (hi - lo > covered[i]) {
          covered[i] = hi - lo;
          owner[i] = &t;
        }
      }
    }
    out += fmt::format("device {:<3} ", d);
    const SimTime slice = end / columns;
    for (std::size_t c = 0; c < owner.size(); ++c) {
      const OpTiming* t = owner[c];
      if (t == nullptr || covered[c] * 2 < slice) {
        out += '.';
        continue;
      }
      char letter = kLetters[static_cast<std::size_t>(t->op.kind)];
      if (t->op.stage != first_stage) letter = static_cast<char>(letter - 'A' + 'a');
      if (options.colour) {
        out += std::string(kAnsi[static_cast<std::size_t>(t->op.kind)]) + letter + kReset;
      } else {
        out += letter;
      }
    }
    out += '\n';
  }
  out += fmt::format("{:<{}}0{:>{}}\n", "", label_width, fmt::format("{:.3f} ms", ns_to_ms(end)), columns - 1);
  out += "F forward, B input gradient, W weight gradient, X fused backward, O overlapped F and backward; lower "
         "case: a later chunk; . idle\n";
  return out;
}

}  // namespace pipeplan
