#pragma once
// What a command will hold in memory at its peak, estimated before the work from the request
// (issue 31, item 8): the op lists, the text written whole and the run's records, each from the
// sizes of the structures and of the text it writes (sim/run_memory.hpp for the run's part).
// A caller compares it with what the machine allows and refuses up front, naming what made it
// large. The counts are upper bounds (3 ops per stage and micro-batch, the longest entry), so
// the estimate is above the peak: GPipe P = 64, M = 16384 is estimated at 351 MiB and peaks at
// 155 MiB (docs/formats.md, "Memory before the work").
#include <cstddef>

#include "schedules/generator.hpp"
#include "sim/run_memory.hpp"

namespace pipeplan {

/// The most bytes pipeplan's schedule JSON (schedule_json_text) takes per entry of a device's
/// list, for ids below `stages` and `microbatches`: the longest entry is
/// `      {"kind": "SEND_F", "stage": S, "microbatch": M, "batched": true},` and its newline,
/// 70 bytes besides the digits; an FB's two overlap fields count as a second entry.
[[nodiscard]] Bytes schedule_entry_bytes(int stages, int microbatches);

/// The ops `generator` builds for `request` at most: three (F, B, W) per stage and micro-batch.
[[nodiscard]] long long generated_ops(const GenerateRequest& request);

/// Bytes generating holds at its peak: the schedule, its JSON text when `as_text` (generate
/// writes it whole), and for a generator that plans with the costs its search's candidates, each
/// worker's and the best two kept, each timed without a timeline over `iterations`.
[[nodiscard]] Bytes generation_bytes(const Generator& generator, const GenerateRequest& request, int iterations,
                                     std::size_t workers, bool as_text);

/// Bytes timing a schedule of `shape` holds: the schedule and the run (run_bytes).
[[nodiscard]] Bytes timing_bytes(const RunShape& shape);

}  // namespace pipeplan
