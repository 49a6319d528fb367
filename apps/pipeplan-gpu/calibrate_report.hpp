#pragma once
// What `pipeplan-gpu calibrate` writes beside the costs (docs/gpu.md): the context of the
// measurement (card, versions, clocks at the start and the end) and the table for the terminal.
#include <string>

#include "calibrate_links.hpp"
#include "calibrate_pieces.hpp"
#include "gpu_info.hpp"
#include "io/json_text.hpp"
#include "nvml_clocks.hpp"

namespace pipeplan::gpu {

/// NVML's reading of `device` now, or why there is none.
[[nodiscard]] Json clocks_json(int device);

/// The profile's "context": card, table entry (and why none), versions, peak clocks, the clocks
/// read at the start and the end, date, warm-up and repetitions.
[[nodiscard]] Json context_json(const Inventory& inv, const DeviceInfo& dev, const std::string& table_entry,
                                const TimingPlan& plan, Json clocks_start, Json clocks_end);

/// The terminal's table: every measurement, the layer's and the head's F/B/W, the transfer.
[[nodiscard]] std::string calibrate_report(const std::string& name, const PieceMeasurements& pieces,
                                           const TransferMeasurement& transfer, Bytes bytes);

}  // namespace pipeplan::gpu
