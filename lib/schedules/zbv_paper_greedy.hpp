#pragma once
// The zero-bubble authors' greedy heuristic for ZB-V (Qi et al., ICLR 2024, section 6; their
// reference implementation, zerobubble/scheduler/zbv.py, PipelineGraph.get_v_schedule), as one
// more family of candidates for zbv-auto: with it among the candidates, zbv-auto can only
// improve on the authors' ZB-V heuristic.
//
// Device r holds stage r (the first chunk) and stage 2P-1-r (the second), the V placement. The
// heuristic warms up with forwards of the first chunk as far as time and memory allow before
// the second chunk's first forward comes back, then lets each device catch up with the one
// before it; then, 2M rounds of one backward and one forward per device, it picks the chunk
// whose input is there, puts W ops into the gaps before an op whose input is late, and one more
// W when the gap is longer than the worst device's idle time allows. A pass is then run again
// with each device allowed the idle time by which it was short of the worst device, while that
// makes the worst idle time shrink; the best of that chain is the pass's result.
//
// Written for per-stage costs: the reference takes one F, B, W time and one activation size for
// every chunk. Where both apply they give the same orders (tests/zbv_auto_test.cpp checks the
// spans against the reference's on the same inputs). With per-stage costs the reference's rules
// can pick an op whose input is not placed yet (it fails an assertion there); the port's repair
// lets that device put nothing of it that round and adds rounds at the end for what is left.
#include <optional>

#include "schedules/zb_greedy.hpp"

namespace pipeplan {

/// The reference's two on/off choices; its create_schedule tries all four.
struct ZbvPaperChoices {
  /// Before a backward of the second chunk (the loss side), put one more W into a gap that is
  /// longer than the device may idle. Before the first chunk's backward it always does.
  bool fill_before_second_backward = true;
  /// The same before a forward.
  bool fill_before_forward = true;
};

/// The best of one chain of the heuristic's passes (see above), on the V placement: 2P stages,
/// stage s < P on device s and s >= P on device 2P-1-s. nullopt for any other placement, or when
/// a device's memory cannot hold a forward the heuristic must place. Its times are the
/// simulator's: every op starts as early as its order allows.
[[nodiscard]] std::optional<GreedySchedule> zbv_paper_greedy(const GreedyProblem& problem,
                                                             const ZbvPaperChoices& choices);

}  // namespace pipeplan
