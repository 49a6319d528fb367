#pragma once
// The Chrome trace of a simulated run (Trace Event Format; it opens in Perfetto and in
// chrome://tracing): a process per device, a complete event per op with its real start and
// duration, a flow arrow per transfer between devices, and each device's memory as a counter.
#include <string>
#include <vector>

#include "io/json_text.hpp"
#include "io/text_sink.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// The trace document. Times are microseconds, as the format wants; `metadata` carries the
/// schedule's name and counts, the makespan, the step time and pipeplan's version.
[[nodiscard]] Json chrome_trace(const Schedule& schedule, const SimResult& result);

struct TraceRun {
  std::string label;  ///< prefixes the process names, e.g. "zbh1: device 0"
  const Schedule* schedule;
  const SimResult* result;
};

/// Several runs in one trace, each its own group of processes, one after the other.
[[nodiscard]] Json chrome_trace_comparison(const std::vector<TraceRun>& runs);

/// Streams to_json_text(chrome_trace(schedule, result)) byte for byte, straight from the
/// result: no document is built, and the memory it takes beyond the result is a pointer and a
/// producer entry per op, whatever the size of the text.
void write_chrome_trace(TextSink& out, const Schedule& schedule, const SimResult& result);

/// Streams to_json_text(chrome_trace_comparison(runs)) byte for byte.
void write_chrome_trace_comparison(TextSink& out, const std::vector<TraceRun>& runs);

}  // namespace pipeplan
