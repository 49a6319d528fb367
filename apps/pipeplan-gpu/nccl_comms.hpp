#pragma once
// The NCCL communicators of one process driving every local GPU, one rank per device, made
// non-blocking: no call waits inside NCCL, every wait is a poll here that also watches an abort
// flag. A rank that fails never posts its part, and its peers would otherwise wait in NCCL
// forever (it has no timeout). abort() raises the flag from any thread; every waiting rank then
// throws, and once they have stopped the destructor aborts the communicators (ncclCommAbort,
// which also ends NCCL's kernels still waiting on the GPUs) instead of destroying them. Declare
// it after the device buffers its transfers use: freeing memory waits for the GPU.
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

namespace pipeplan::gpu {

class NcclComms {
 public:
  /// Ranks 0 .. devices-1 on devices 0 .. devices-1.
  explicit NcclComms(int devices);
  ~NcclComms();
  NcclComms(const NcclComms&) = delete;
  NcclComms& operator=(const NcclComms&) = delete;

  [[nodiscard]] ncclComm_t comm(int rank) const { return comms_[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] int size() const { return static_cast<int>(comms_.size()); }

  /// Waits until the rank's communicator has taken what was posted (ncclGroupEnd of a
  /// non-blocking communicator returns before); throws GpuError on an NCCL error or once
  /// aborted, naming `what`.
  void settle(int rank, const char* what);

  /// Stops every wait, now and to come (the first reason is kept). Safe from any thread.
  void abort(const std::string& reason);
  [[nodiscard]] bool aborted() const { return aborted_.load(); }
  [[nodiscard]] std::string abort_reason() const;

  /// Throws GpuError when a communicator has reported an asynchronous error; the watchdog of a
  /// host waiting for a stream calls it.
  void check(const char* what);

 private:
  std::vector<ncclComm_t> comms_;
  std::atomic<bool> aborted_{false};
  mutable std::mutex mutex_;
  std::string reason_;
  int uncaught_ = std::uncaught_exceptions();
};

}  // namespace pipeplan::gpu
