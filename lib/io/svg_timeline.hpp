#pragma once
// The SVG timeline of a simulated run: a lane per device with a box per op, coloured by kind
// (a device's later chunks lighter), a time axis in milliseconds, and each device's memory over
// time under the lanes with its peak marked and the memory limit as a dashed line.
#include <optional>
#include <string>
#include <vector>

#include "io/text_sink.hpp"
#include "model/schedule.hpp"
#include "model/units.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

struct SvgOptions {
  int width = 1200;                   ///< of the plot area, in pixels
  std::optional<Bytes> memory_limit;  ///< drawn as a dashed line when set
};

/// A self-contained SVG document. Each op is a <rect class="op"> with a <title> (kind, stage,
/// micro-batch, start and end) that browsers show on hover; labels with the micro-batch appear
/// where the box is wide enough. The same input gives the same bytes.
[[nodiscard]] std::string svg_timeline(const Schedule& schedule, const SimResult& result,
                                       const SvgOptions& options = {});

struct SvgRun {
  const Schedule* schedule;
  const SimResult* result;
};

/// Several runs stacked on one time scale, so the difference in step time shows at a glance.
[[nodiscard]] std::string svg_comparison(const std::vector<SvgRun>& runs, const SvgOptions& options = {});

/// The same documents streamed: the memory they take is the sink's chunk, whatever the ops.
void write_svg_timeline(TextSink& out, const Schedule& schedule, const SimResult& result,
                        const SvgOptions& options = {});
void write_svg_comparison(TextSink& out, const std::vector<SvgRun>& runs, const SvgOptions& options = {});

}  // namespace pipeplan
