#pragma once
// The terminal view of a simulated run: a row per device, a character per slice of time.
#include <string>

#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

struct TextOptions {
  int width = 80;       ///< of the whole line, device label included
  bool colour = false;  ///< ANSI colours (apps/ turns them on when stdout is a terminal)
};

/// Each column covers makespan / columns of time (lane_cells): '.' where the device idles for at
/// least half of it, however many ops share the rest; else the kind that covers most of it: F,
/// B, W, X for a fused BW or O for an overlapped FB, lower case for a device's later chunks. Under
/// each device's row, a '^' under each cell the critical path (critical_path(), the first
/// iteration's) covers for at least half; without a path (no ops timed) no such rows. A time
/// axis and a legend follow.
[[nodiscard]] std::string text_timeline(const Schedule& schedule, const SimResult& result, const TextOptions& options);

}  // namespace pipeplan
