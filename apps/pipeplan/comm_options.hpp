#pragma once
// The communication flags of simulate, compare, validate and plan: --comm overlap|blocking|rendezvous
// and --policy for schedules that are not lowered yet (docs/model.md, "Communication"). What
// their values mean, and the checks, are lib/io/run_flags.hpp's (the Python package's too).
#include <CLI/CLI.hpp>

#include "io/run_flags.hpp"

namespace pipeplan::cli {

/// Registers --comm and --policy on `sub`; `reads_files`: its schedules come from files, whose own
/// sends and receives --policy does not replace (plan's are generated).
void add_comm_options(CLI::App& sub, CommFlags& flags, bool reads_files = true);

}  // namespace pipeplan::cli
