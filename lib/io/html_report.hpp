#pragma once
// The HTML report of a simulated run: one self-contained file (no network, no scripts) with the
// summary, the SVG timeline (whose boxes show their details on hover), a table per device and
// the critical path.
#include <string>

#include "io/svg_timeline.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan {

/// The report; `costs` says in one line where the costs came from.
[[nodiscard]] std::string html_report(const Schedule& schedule, const SimResult& result, const std::string& costs,
                                      const SvgOptions& svg = {});

/// The same report streamed, its timeline op by op.
void write_html_report(TextSink& out, const Schedule& schedule, const SimResult& result, const std::string& costs,
                       const SvgOptions& svg = {});

}  // namespace pipeplan
