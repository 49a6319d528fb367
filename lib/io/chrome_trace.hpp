#pragma once
// The Chrome trace of a simulated run (Trace Event Format; it opens in Perfetto and in
// chrome://tracing): a process per device, a complete event per op with its real start and
// duration, a flow arrow per transfer between devices, and each device's memory as a counter.
// The critical path (sim/critical_path.hpp, the first iteration's) is marked three ways: its ops
// carry "args": {"critical": true} and "cname": "terrible" (chrome://tracing's dark red; Perfetto
// ignores cname), the transfers on it are flows named "critical transfer", and a last process,
// "critical path", repeats its ops in order on one track, which Perfetto shows too.
#include <algorithm>
#include <string>
#include <vector>

#include "io/json_text.hpp"
#include "io/text_sink.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// Where a transfer's flow arrow is tied to its ops: 1 ns inside the producer's end and the
/// consumer's start (within a shorter op, its start or end), so that a viewer binds the arrow to
/// those two slices and not to the op that starts where the producer ends (Perfetto binds a flow
/// to the slice open on its track, chrome://tracing to the slice at its time, the earlier on a tie).
[[nodiscard]] inline SimTime flow_start(const OpTiming& producer) {
  return std::max(producer.start, producer.end - 1);
}
[[nodiscard]] inline SimTime flow_finish(const OpTiming& consumer) {
  return std::min(consumer.end, consumer.start + 1);
}

/// The trace document. Times are microseconds, as the format wants; `metadata` carries the
/// schedule's name and counts, the makespan, the step time and pipeplan's version.
[[nodiscard]] Json chrome_trace(const Schedule& schedule, const SimResult& result);

struct TraceRun {
  std::string label;  ///< prefixes the process names, e.g. "zbh1: device 0"
  const Schedule* schedule;
  const SimResult* result;
};

/// Several runs in one trace, each its own group of processes, one after the other; the runs'
/// critical-path processes follow all of them, so that a run's devices keep consecutive pids.
[[nodiscard]] Json chrome_trace_comparison(const std::vector<TraceRun>& runs);

/// Streams to_json_text(chrome_trace(schedule, result)) byte for byte, straight from the
/// result: no document is built, and the memory it takes beyond the result is a pointer and a
/// producer entry per op and the critical path, whatever the size of the text.
void write_chrome_trace(TextSink& out, const Schedule& schedule, const SimResult& result);

/// Streams to_json_text(chrome_trace_comparison(runs)) byte for byte.
void write_chrome_trace_comparison(TextSink& out, const std::vector<TraceRun>& runs);

}  // namespace pipeplan
