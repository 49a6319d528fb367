#include "io/lane_raster.hpp"

#include <algorithm>
#include <cstddef>

namespace pipeplan {

int first_stage_of(const Schedule& s, int device) {
  for (std::size_t st = 0; st < s.placement.size(); ++st) {
    if (s.placement[st] == device) return static_cast<int>(st);
  }
  return s.stages;
}

std::vector<LaneCell> lane_cells(const DeviceTimeline& device, int first_stage, SimTime end, int cells) {
  std::vector<LaneCell> out(static_cast<std::size_t>(std::max(cells, 0)));
  if (out.empty() || end <= 0) return out;
  const auto n = static_cast<SimTime>(out.size());
  // floor(end * c / n) without the product: end = q n + r gives q c + floor(r c / n), and r c
  // stays below n^2, where end * c could overflow for a step of months.
  auto cell_start = [&, q = end / n, r = end % n](SimTime c) { return q * c + r * c / n; };
  // The cell that holds time t: estimated in floating point, then settled on the exact bounds.
  auto cell_of = [&](SimTime t) {
    auto c = std::clamp<SimTime>(
        static_cast<SimTime>(static_cast<double>(t) / static_cast<double>(end) * static_cast<double>(n)), 0, n - 1);
    while (c > 0 && cell_start(c) > t) --c;
    while (c + 1 < n && cell_start(c + 1) <= t) ++c;
    return c;
  };
  for (const OpTiming& t : device.ops) {
    if (t.start >= end) break;
    const std::size_t key = static_cast<std::size_t>(t.op.kind) * 2 + (t.op.stage != first_stage ? 1 : 0);
    for (SimTime c = cell_of(t.start); c < n && cell_start(c) < t.end; ++c) {
      const SimTime lo = std::max(t.start, cell_start(c));
      const SimTime hi = std::min(t.end, cell_start(c + 1));
      auto& cell = out[static_cast<std::size_t>(c)];
      ++cell.ops;
      if (hi > lo) cell.covered[key] += hi - lo;
    }
  }
  for (std::size_t c = 0; c < out.size(); ++c) {
    const auto& times = out[c].covered;
    SimTime total = 0;
    std::size_t best = 0;
    for (std::size_t k = 0; k < kLaneKeys; ++k) {
      total += times[k];
      if (times[k] > times[best]) best = k;
    }
    const SimTime span = cell_start(static_cast<SimTime>(c) + 1) - cell_start(static_cast<SimTime>(c));
    out[c].busy = total > 0 && 2 * total >= span;
    out[c].kind = static_cast<OpKind>(best / 2);
    out[c].later_chunk = best % 2 == 1;
  }
  return out;
}

}  // namespace pipeplan
