#include "schedules/zbv_paper_greedy.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "model/placement.hpp"
#include "schedules/zbv_paper_pass.hpp"

namespace pipeplan {

namespace zbv_paper {

// Each device's first forward; then, from the last device down, as many more forwards of the
// first chunk on it and every device before it as fit in time before the second chunk's first
// forward comes back from the next device, leaving memory for one forward of each chunk it will
// still start before its first backward (2r+1 of them); then its first forward of the second chunk.
void VeePass::warm_up() {
  for (int r = 0; r < p_; ++r) put(r, OpKind::F, kFirst);
  for (int r = p_ - 1; r >= 0 && ok_; --r) {
    if (r + 1 < p_) {
      const SimTime back = f_end(kSecond, r + 1, 0) + comm(true, kSecond, r);
      auto room = [&] {
        for (int j = 0; j <= r; ++j) {
          const Device& d = dev(j);
          const Bytes largest = std::max(d.chunk[kFirst].activation, d.chunk[kSecond].activation);
          if (d.memory + d.chunk[kFirst].activation + (2 * j + 1) * largest > d.limit) return false;
        }
        return true;
      };
      while (ok_ && dev(r).forwards[kFirst] < m_ && dev(r).free_at + dev(r).chunk[kFirst].f <= back && room()) {
        for (int j = 0; j <= r; ++j) put(j, OpKind::F, kFirst);
      }
    }
    put(r, OpKind::F, kSecond);
  }
}

// Device by device from the second on: sweeps of forwards, alternating the chunk, on every device
// from the last down to it, until it has run as many forwards as the device before it and more
// second-chunk forwards (while that one has any left).
void VeePass::catch_up() {
  std::size_t chunk = kFirst;
  for (int r = 1; r < p_ && ok_; ++r) {
    int idle_sweeps = 0;
    auto behind = [&] {
      const Device& d = dev(r);
      const Device& before = dev(r - 1);
      return d.forwards[kFirst] + d.forwards[kSecond] < before.forwards[kFirst] + before.forwards[kSecond] ||
             (d.forwards[kSecond] <= before.forwards[kSecond] && before.forwards[kSecond] < m_);
    };
    while (ok_ && behind()) {
      bool put_any = false;
      for (int j = p_ - 1; j >= r; --j) {
        if (!forward_ready(j, chunk)) continue;  // the reference's test is forwards < M; see backwards()
        // The reference puts it anyway and fails its memory assertion (with per-stage costs the
        // warm-up's room can be short by then); the port's repair leaves it to the rounds.
        if (dev(j).memory + dev(j).chunk[chunk].activation > dev(j).limit) continue;
        put(j, OpKind::F, chunk);
        put_any = true;
      }
      chunk = 1 - chunk;
      idle_sweeps = put_any ? 0 : idle_sweeps + 1;
      // Nothing left to run (the reference would loop forever, or fail on memory): the port's
      // repair lets device r catch up no further and the rounds go on from there.
      if (idle_sweeps == 2) break;
    }
  }
}

// One backward per device: the first chunk's where its input is there (or the second chunk has
// no backward left), else the second chunk's; the first chunk's from the last device down, then
// the second chunk's from device 0 up, so each input is placed before the op that needs it.
// With one F, B, W time (the reference's) that holds; with per-stage costs a device can be
// ahead of the one its input comes from, where the reference fails its assertions. The repair:
// such a device puts no backward this round and runs it in a later one (run() adds the rounds).
void VeePass::backwards() {
  std::vector<int> first_chunk, second_chunk;
  for (int r = 0; r < p_; ++r) {
    const Device& d = dev(r);
    if (d.backwards[kFirst] >= m_ && d.backwards[kSecond] >= m_) continue;  // done (extra rounds)
    if (d.backwards[kFirst] >= d.backwards[kSecond]) {
      second_chunk.push_back(r);
    } else if (r == p_ - 1 || b_end(kFirst, r + 1, d.backwards[kFirst]) != kUnplaced || d.backwards[kSecond] >= m_) {
      first_chunk.push_back(r);
    } else {
      second_chunk.push_back(r);
    }
  }
  std::reverse(first_chunk.begin(), first_chunk.end());
  for (int r : first_chunk) {
    if (!backward_ready(r, kFirst)) continue;  // the repair (above)
    fill_gap(r, false, kFirst, true);
    put(r, OpKind::B, kFirst);
  }
  for (int r : second_chunk) {
    if (!backward_ready(r, kSecond)) continue;
    fill_gap(r, false, kSecond, choices_.fill_before_second_backward);
    put(r, OpKind::B, kSecond);
  }
}

// One forward per device where one can run: the second chunk's when its input is there, else
// the first chunk's when its input is there (device 0: always), while forwards are left.
void VeePass::forwards() {
  for (int r = 0; r < p_ && ok_; ++r) {
    Device& d = dev(r);
    if (d.forwards[kSecond] >= m_) continue;
    constexpr std::size_t kNone = 2;
    std::size_t chunk = kNone;
    if (d.forwards[kSecond] >= d.forwards[kFirst]) {
      chunk = kFirst;
    } else if (r == p_ - 1 || f_end(kSecond, r + 1, d.forwards[kSecond]) != kUnplaced) {
      chunk = kSecond;
    } else if (d.forwards[kFirst] < m_ && (r == 0 || f_end(kFirst, r - 1, d.forwards[kFirst]) != kUnplaced)) {
      chunk = kFirst;
    }
    // The repair of backwards(): the first branch has no test of the input, which per-stage
    // costs can leave unplaced (the reference fails there); the device waits a round.
    if (chunk == kNone || !forward_ready(r, chunk)) continue;
    // Memory full: run W ops until the forward fits.
    while (ok_ && d.memory + d.chunk[chunk].activation > d.limit) {
      if (!has_w(r)) return fail();
      put_w(r);
    }
    fill_gap(r, true, chunk, choices_.fill_before_forward);
    put(r, OpKind::F, chunk);
  }
}

}  // namespace zbv_paper

std::optional<GreedySchedule> zbv_paper_greedy(const GreedyProblem& problem, const ZbvPaperChoices& choices) {
  const Schedule& shape = problem.shape;
  if (shape.stages != 2 * shape.devices || shape.placement != vee_placement(shape.devices)) return std::nullopt;
  // The chain: each pass allows every device the idle time by which the previous pass's device
  // fell short of its worst one; it goes on while the worst idle time strictly shrinks.
  std::vector<SimTime> allowed(static_cast<std::size_t>(shape.devices), -1);
  std::vector<SimTime> idle;
  std::optional<GreedySchedule> best = zbv_paper::VeePass(problem, choices, allowed).run(idle);
  if (!best) return std::nullopt;
  SimTime worst = *std::max_element(idle.begin(), idle.end());
  for (;;) {
    allowed = idle;
    std::optional<GreedySchedule> next = zbv_paper::VeePass(problem, choices, allowed).run(idle);
    if (!next) break;
    const SimTime next_worst = *std::max_element(idle.begin(), idle.end());
    if (next_worst >= worst) break;
    best = std::move(next);
    worst = next_worst;
  }
  return best;
}

}  // namespace pipeplan
