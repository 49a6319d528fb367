#pragma once
// The zero-bubble paper's own heuristic (Qi et al., ICLR 2024, section 3; the authors' reference
// implementation, zerobubble/scheduler/zb.py), as one more family of candidates for the search:
// with it among the candidates, the automatic schedules can only improve on the paper.
//
// It plans round by round, one micro-batch per round: in round 0 every device runs as many
// forwards as its memory allows before the first backward can come back; in each later round
// every device runs one forward (unless the third choice below skips it) and then the round's
// B, from the last stage down; W ops go into the gaps before an F or a B whose input is late,
// and whenever memory is full. One difference from the reference: its warm-up rule "device s
// runs at least one forward more than device s+1" is skipped there for a device whose warm-up
// covers every micro-batch, which with unequal costs lets a later device run ahead of its
// predecessor (its asserts then fail); here the rule always holds.
#include <optional>

#include "schedules/zb_greedy.hpp"

namespace pipeplan {

/// The reference's three on/off choices; the search tries all eight.
struct PaperGreedyChoices {
  /// Warm-up: allow a forward that would still run when the first B's input arrives.
  bool allow_bubble_before_first_b = false;
  /// Skip a device's forward when it already leads its successor by two or more and the skip
  /// costs no more idle time than the worst device already has.
  bool skip_forward_when_ahead = false;
  /// Fill a gap shorter than W with a W when leaving it idle would not raise the largest
  /// accumulated idle time of any device.
  bool fill_gap_when_within_worst = false;
};

/// One pass of the paper's heuristic. Needs one stage per device on stage s = device s; nullopt
/// for any other placement, or when a device's memory cannot hold the next forward.
/// The times it reports are the simulator's: every op starts as early as its order allows.
[[nodiscard]] std::optional<GreedySchedule> paper_greedy_zero_bubble(const GreedyProblem& problem,
                                                                     const PaperGreedyChoices& choices);

}  // namespace pipeplan
