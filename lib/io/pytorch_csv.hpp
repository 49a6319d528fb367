#pragma once
// PyTorch pipelining's CSV schedule files (torch.distributed.pipelining, `_dump_csv` and
// `_load_csv`; docs/formats.md, "PyTorch pipelining CSV"): one row per rank, no header, a cell per action
// `<stage><type><microbatch>` with the global stage index, an empty cell for an idle step.
#include <string>
#include <string_view>
#include <vector>

#include "model/enum_table.hpp"
#include "model/lowered.hpp"
#include "model/schedule.hpp"

namespace pipeplan {

/// Which names the file uses for the backward. `Current`: I is our B (input gradient), W is W,
/// B is the full backward (our BW). `Legacy` (older PyTorch files): B is the input gradient, W
/// the weight gradient, BW the full backward. `Auto` takes Current when a cell says I, Legacy
/// when one says BW or when a stage and micro-batch has both B and W, and Current otherwise.
enum class CsvNaming : unsigned char { Auto, Current, Legacy };

inline constexpr EnumTable<CsvNaming, 3> kCsvNamings = {{
    {"auto", CsvNaming::Auto, "decide from the file"},
    {"current", CsvNaming::Current, "I input gradient, B full backward"},
    {"legacy", CsvNaming::Legacy, "B input gradient, BW full backward"},
}};

struct CsvImport {
  Schedule schedule;
  CsvNaming naming = CsvNaming::Current;  ///< the naming read (never Auto)
  int communication_actions = 0;          ///< SEND/RECV, UNSHARD, RESHARD, REDUCE_GRAD: not in `schedule`
  int overlapped_pairs = 0;               ///< (F;B)OVERLAP_F_B pairs, imported as FB ops
  /// The same ops with the file's SEND_F, RECV_F, SEND_B and RECV_B where the file has them
  /// (policy "pytorch"), for --comm blocking or rendezvous; FSDP's actions are left out.
  LoweredSchedule lowered;
  int transfers = 0;  ///< the sends and receives kept in `lowered`
};

/// Reads a PyTorch CSV schedule from `text` (from `source`, for messages). The placement is
/// inferred from the row each stage appears in. Throws Error naming the row and column (both
/// from 1) of a malformed cell, or a stage that appears in two rows.
[[nodiscard]] CsvImport schedule_from_pytorch_csv(std::string_view text, const std::string& source,
                                                  CsvNaming naming = CsvNaming::Auto);

/// The CSV of `schedule` in today's naming: one row per device, its compute ops in order.
[[nodiscard]] std::string schedule_to_pytorch_csv(const Schedule& schedule);

/// The CSV of a lowered schedule: its compute ops with its SEND_F, RECV_F, SEND_B and RECV_B in
/// the order it posts them (a batched post is written alone: the CSV has no groups). What runs
/// on NCCL is the lowering's business: a `timed` lowering, or any that lowering_problems accepts
/// and rendezvous simulates to the end, pairs every send with its receive in posting order.
[[nodiscard]] std::string lowered_to_pytorch_csv(const LoweredSchedule& lowered);

/// "auto", "current", "legacy".
[[nodiscard]] std::string_view csv_naming_name(CsvNaming naming);

}  // namespace pipeplan
