#pragma once
// The result file (docs/formats.md, "Result"): what a simulation measured.
#include <string>

#include "io/json_text.hpp"
#include "io/text_sink.hpp"
#include "lower/simulate_lowered.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// The result of simulating `schedule` as a "pipeplan.result" document: makespan, bubble rate,
/// step time, per-device busy, idle and peak memory with its memory timeline, and every op.
/// The document states the format; the CLI writes the same bytes with write_result_json.
[[nodiscard]] Json result_to_json(const Schedule& schedule, const SimResult& result);

/// The communication a run used: the result's "communication" (--comm blocking or rendezvous).
struct ResultCommunication {
  std::string mode;
  std::string lowering;
};

/// Streams to_json_text(result_to_json(schedule, result)) byte for byte, with
/// "communication" last when given, straight from the result: no document is built, and the
/// memory it takes is the sink's chunk whatever the number of ops.
void write_result_json(TextSink& out, const Schedule& schedule, const SimResult& result,
                       const ResultCommunication* communication = nullptr);

/// The result of simulate_lowered: its "communication" (the mode and the lowering's policy)
/// written when it ran under blocking or rendezvous, taken from the run itself.
void write_result_json(TextSink& out, const Schedule& schedule, const LoweredRun& run);

/// A result file read back: the schedule it timed (its first iteration's order per device) and
/// the run, enough to draw or export it again without simulating.
struct LoadedResult {
  Schedule schedule;
  SimResult result;
};

/// Reads a "pipeplan.result" document parsed from `source`. Throws Error naming the field.
[[nodiscard]] LoadedResult result_from_json(const Json& document, const std::string& source);

}  // namespace pipeplan
