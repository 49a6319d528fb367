#include "nccl_comms.hpp"

#include <cuda_runtime.h>

#include <thread>

#include "gpu_error.hpp"

namespace pipeplan::gpu {

NcclComms::NcclComms(int devices) : comms_(static_cast<std::size_t>(devices), nullptr) {
  ncclUniqueId id;
  PIPEPLAN_NCCL(ncclGetUniqueId(&id));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  // One thread initialises every rank in one group, as ncclCommInitAll does, but with a config.
  PIPEPLAN_NCCL(ncclGroupStart());
  for (int r = 0; r < devices; ++r) {
    PIPEPLAN_CUDA(cudaSetDevice(r));
    const ncclResult_t status = ncclCommInitRankConfig(&comms_[static_cast<std::size_t>(r)], devices, id, r, &config);
    if (status != ncclSuccess && status != ncclInProgress) {
      ncclGroupEnd();
      fail_call("ncclCommInitRankConfig", __FILE__, __LINE__, ncclGetErrorString(status));
    }
  }
  const ncclResult_t status = ncclGroupEnd();
  if (status != ncclSuccess && status != ncclInProgress)
    fail_call("ncclGroupEnd", __FILE__, __LINE__, ncclGetErrorString(status));
  for (int r = 0; r < devices; ++r) settle(r, "ncclCommInitRankConfig");
}

NcclComms::~NcclComms() {
  // After a failure (an exception on its way, or an abort) an outstanding operation may never
  // finish: abort. Otherwise finalise (flushes what is outstanding) and destroy.
  const bool failing = aborted_.load() || std::uncaught_exceptions() > uncaught_;
  for (ncclComm_t c : comms_) {
    if (c == nullptr) continue;
    if (failing) {
      // Also ends NCCL's kernels waiting for a peer, so that the streams can drain.
      ncclCommAbort(c);
      continue;
    }
    // Finalising waits for the peers to finalise too; bounded, in case one cannot.
    ncclCommFinalize(c);
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    ncclResult_t state = ncclInProgress;
    while (ncclCommGetAsyncError(c, &state) == ncclSuccess && state == ncclInProgress &&
           std::chrono::steady_clock::now() < limit) {
      std::this_thread::yield();
    }
    if (state == ncclSuccess) {
      ncclCommDestroy(c);
    } else {
      ncclCommAbort(c);
    }
  }
}

void NcclComms::settle(int rank, const char* what) {
  const ncclComm_t c = comm(rank);
  for (;;) {
    if (aborted_.load()) throw GpuError(std::string(what) + ": stopped, " + abort_reason());
    ncclResult_t state = ncclSuccess;
    PIPEPLAN_NCCL(ncclCommGetAsyncError(c, &state));
    if (state == ncclSuccess) return;
    if (state != ncclInProgress) {
      throw GpuError(std::string(what) + " failed on rank " + std::to_string(rank) + ": " + ncclGetErrorString(state) +
                     " (NCCL_DEBUG=WARN says more)");
    }
    std::this_thread::yield();
  }
}

void NcclComms::abort(const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (aborted_.exchange(true)) return;
  reason_ = reason;
}

std::string NcclComms::abort_reason() const {
  std::lock_guard lock(mutex_);
  return "the communicators were aborted: " + reason_;
}

void NcclComms::check(const char* what) {
  if (aborted_.load()) throw GpuError(std::string(what) + ": " + abort_reason());
  for (int r = 0; r < size(); ++r) {
    ncclResult_t state = ncclSuccess;
    ncclCommGetAsyncError(comm(r), &state);
    if (state != ncclSuccess && state != ncclInProgress) {
      throw GpuError(std::string(what) + ": NCCL failed on rank " + std::to_string(r) + ": " +
                     ncclGetErrorString(state));
    }
  }
}

}  // namespace pipeplan::gpu
