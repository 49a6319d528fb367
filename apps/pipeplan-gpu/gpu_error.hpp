#pragma once
// Every CUDA, cuBLAS and NCCL call is checked: a failure names the call, the file and line where
// it was made, and the library's error string. No GPU at all is its own error with its own exit
// code, so scripts can tell "nothing to measure here" from a failure.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <stdexcept>
#include <string>

namespace pipeplan::gpu {

class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// No device, or no driver to reach one.
class NoGpu : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Exit codes: 0 success, 1 a failure or invalid input, 2 a usage error, 3 no GPU.
inline constexpr int kExitNoGpu = 3;

[[noreturn]] void fail_call(const char* call, const char* file, int line, const std::string& error);

}  // namespace pipeplan::gpu

// Macros, because only they can quote the call and say where it was made.
#define PIPEPLAN_CUDA(call)                                                                        \
  do {                                                                                             \
    const cudaError_t pipeplan_status_ = (call);                                                   \
    if (pipeplan_status_ != cudaSuccess) {                                                         \
      ::pipeplan::gpu::fail_call(#call, __FILE__, __LINE__, cudaGetErrorString(pipeplan_status_)); \
    }                                                                                              \
  } while (false)

#define PIPEPLAN_CUBLAS(call)                                                                         \
  do {                                                                                                \
    const cublasStatus_t pipeplan_status_ = (call);                                                   \
    if (pipeplan_status_ != CUBLAS_STATUS_SUCCESS) {                                                  \
      ::pipeplan::gpu::fail_call(#call, __FILE__, __LINE__, cublasGetStatusString(pipeplan_status_)); \
    }                                                                                                 \
  } while (false)

#define PIPEPLAN_NCCL(call)                                                                        \
  do {                                                                                             \
    const ncclResult_t pipeplan_status_ = (call);                                                  \
    if (pipeplan_status_ != ncclSuccess) {                                                         \
      ::pipeplan::gpu::fail_call(#call, __FILE__, __LINE__, ncclGetErrorString(pipeplan_status_)); \
    }                                                                                              \
  } while (false)
