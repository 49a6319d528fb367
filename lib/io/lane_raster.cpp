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

namespace {

// `n` equal cells over [0, end): where each starts and which holds a time.
class CellGrid {
 public:
  CellGrid(SimTime end, SimTime n) : end_(end), n_(n), q_(end / n), r_(end % n) {}

  // floor(end * c / n) without the product: end = q n + r gives q c + floor(r c / n), and r c
  // stays below n^2, where end * c could overflow for a step of months.
  [[nodiscard]] SimTime start(SimTime c) const { return q_ * c + r_ * c / n_; }

  // The cell that holds time t: estimated in floating point, then settled on the exact bounds.
  [[nodiscard]] SimTime of(SimTime t) const {
    auto c = std::clamp<SimTime>(
        static_cast<SimTime>(static_cast<double>(t) / static_cast<double>(end_) * static_cast<double>(n_)), 0, n_ - 1);
    while (c > 0 && start(c) > t) --c;
    while (c + 1 < n_ && start(c + 1) <= t) ++c;
    return c;
  }

  [[nodiscard]] SimTime cells() const { return n_; }

  // Calls add(c, covered) for each cell c that [lo, hi) overlaps, however little.
  template <typename Add>
  void overlap(SimTime lo, SimTime hi, Add&& add) const {
    for (SimTime c = of(lo); c < n_ && start(c) < hi; ++c) add(c, std::min(hi, start(c + 1)) - std::max(lo, start(c)));
  }

 private:
  SimTime end_, n_, q_, r_;
};

}  // namespace

std::vector<LaneCell> lane_cells(const DeviceTimeline& device, int first_stage, SimTime end, int cells) {
  std::vector<LaneCell> out(static_cast<std::size_t>(std::max(cells, 0)));
  if (out.empty() || end <= 0) return out;
  const CellGrid grid(end, static_cast<SimTime>(out.size()));
  for (const OpTiming& t : device.ops) {
    if (t.start >= end) break;
    const std::size_t key = static_cast<std::size_t>(t.op.kind) * 2 + (t.op.stage != first_stage ? 1 : 0);
    grid.overlap(t.start, t.end, [&](SimTime c, SimTime covered) {
      auto& cell = out[static_cast<std::size_t>(c)];
      ++cell.ops;
      if (covered > 0) cell.covered[key] += covered;
    });
  }
  for (std::size_t c = 0; c < out.size(); ++c) {
    const auto& times = out[c].covered;
    SimTime total = 0;
    std::size_t best = 0;
    for (std::size_t k = 0; k < kLaneKeys; ++k) {
      total += times[k];
      if (times[k] > times[best]) best = k;
    }
    const SimTime span = grid.start(static_cast<SimTime>(c) + 1) - grid.start(static_cast<SimTime>(c));
    out[c].busy = total > 0 && 2 * total >= span;
    out[c].kind = static_cast<OpKind>(best / 2);
    out[c].later_chunk = best % 2 == 1;
  }
  return out;
}

std::vector<bool> half_covered_cells(const std::vector<const OpTiming*>& ops, SimTime end, int cells) {
  std::vector<bool> out(static_cast<std::size_t>(std::max(cells, 0)), false);
  if (out.empty() || end <= 0) return out;
  const CellGrid grid(end, static_cast<SimTime>(out.size()));
  std::vector<SimTime> covered(out.size(), 0);
  for (const OpTiming* t : ops) {
    if (t->start >= end) continue;
    grid.overlap(t->start, t->end, [&](SimTime c, SimTime time) {
      if (time > 0) covered[static_cast<std::size_t>(c)] += time;
    });
  }
  for (std::size_t c = 0; c < out.size(); ++c) {
    const SimTime span = grid.start(static_cast<SimTime>(c) + 1) - grid.start(static_cast<SimTime>(c));
    out[c] = covered[c] > 0 && 2 * covered[c] >= span;
  }
  return out;
}

}  // namespace pipeplan
