#pragma once
// What pipeplan-gpu checks before it looks for a GPU (issue 31, item 10): its files, with the
// roles pipeplan gives them (apps/pipeplan/file_roles.hpp: `replay -o` naming the --profile it
// reads would overwrite the calibration on a GPU machine), each output opened as it will be
// written (a folder, /proc/version, a missing folder), and the flags that need no device.
// Without a GPU these are the errors a user sees, not "no CUDA device" (exit 3).
#include <string>

#include "calibrate.hpp"
#include "replay.hpp"

namespace pipeplan::gpu {

/// Throws cli::UsageError (exit 2) for an output that is an input or another output, or a GPU
/// name the table lacks; Error (exit 1) for an output that cannot be written.
void check_calibrate_early(const std::string& model, const std::string& output, const CalibrateRequest& request);
void check_replay_early(const ReplayRequest& request);

}  // namespace pipeplan::gpu
