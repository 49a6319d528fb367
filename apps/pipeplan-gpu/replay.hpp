#pragma once
// `pipeplan-gpu replay`: runs a schedule on the GPUs of this machine, one rank per GPU, each
// rank's ops in order with the calibrated kernels, and NCCL send/recv for every cross-device
// dependency in the timed lowering's order (which cannot deadlock), on each rank's compute
// stream; CUDA events around every op. Then the prediction of that same lowering in the
// `blocking` mode against what was measured (docs/gpu.md).
#include <string>

namespace pipeplan::gpu {

struct ReplayRequest {
  std::string schedule;     ///< schedule JSON
  std::string profile;      ///< a profile written by calibrate (it names the shapes to run)
  std::string output;       ///< result JSON, or ""
  std::string trace;        ///< Chrome trace, or ""
  int warmup = 2;           ///< untimed runs of the whole step first
  int iterations = 5;       ///< timed runs; the median one is reported
  double threshold = 0.05;  ///< an op parts from the prediction when its start differs by more
                            ///< than this share of the predicted makespan
  double watchdog_s = 300;  ///< a step not done by then has hung: abort and fail
};

/// Prints the comparison; returns the exit code. Throws NoGpu, GpuError or Error.
int replay(const ReplayRequest& request);

}  // namespace pipeplan::gpu
