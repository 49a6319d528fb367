#pragma once
// The zero-bubble paper's own heuristic (Qi et al., ICLR 2024, section 3; the authors' reference
// implementation, zerobubble/scheduler/zb.py), as one more family of candidates for the search:
// with it among the candidates, the automatic schedules can only improve on the paper.
//
// It plans round by round, one micro-batch per round: in round 0 every device runs as many
// forwards as its memory allows before the first backward can come back; in each later round
// every device runs one forward (unless the third choice below skips it) and then the round's
// B, from the last stage down; W ops go into the gaps before an F or a B whose input is late,
// and whenever memory is full.
//
// The port makes the reference's decisions op for op wherever the reference runs to the end
// (tests/zb_reference_test.cpp holds it to the authors' own code on random costs). One repair:
// the reference skips its warm-up rule "device s runs at least one forward fewer than device
// s-1" for a device whose warm-up covers every micro-batch; when device s-1's does not, device
// s then runs forwards whose inputs s-1 has not made yet, and the reference fails its own
// assertions (its pass is lost; a schedule of that order deadlocks). Here the exemption holds
// only while device s-1 also covers every micro-batch, which changes no pass the reference
// completes. The stricter staircase (the rule for every device) is a fourth choice.
#include <optional>

#include "schedules/zb_greedy.hpp"

namespace pipeplan {

/// How many warm-up forwards a device may keep against the device before it.
enum class WarmUpStaircase {
  /// The reference's: one fewer, except where both cover every micro-batch (see above).
  Reference,
  /// One fewer on every device: no exemption.
  Strict,
};

/// The reference's three on/off choices, and one of ours; the search tries them all.
struct PaperGreedyChoices {
  /// Warm-up: allow a forward that would still run when the first B's input arrives.
  bool allow_bubble_before_first_b = false;
  /// Skip a device's forward when it already leads its successor by two or more and the skip
  /// costs no more idle time than the worst device already has.
  bool skip_forward_when_ahead = false;
  /// Fill a gap shorter than W with a W when leaving it idle would not raise the largest
  /// accumulated idle time of any device.
  bool fill_gap_when_within_worst = false;
  /// The warm-up rule between neighbours (WarmUpStaircase); not the reference's when not Reference.
  WarmUpStaircase staircase = WarmUpStaircase::Reference;
};

/// One pass of the paper's heuristic. Needs one stage per device on stage s = device s; nullopt
/// for any other placement, when a device's memory cannot hold the next forward (where the
/// reference raises "Cannot fit memory"), or with a staircase other than Reference when it keeps
/// the same warm-ups as Reference (the pass would be the reference's own, already a candidate).
/// The times it reports are the simulator's: every op starts as early as its order allows.
[[nodiscard]] std::optional<GreedySchedule> paper_greedy_zero_bubble(const GreedyProblem& problem,
                                                                     const PaperGreedyChoices& choices);

}  // namespace pipeplan
