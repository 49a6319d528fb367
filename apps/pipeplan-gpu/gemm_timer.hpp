#pragma once
// Times GEMMs and kernels on one device with CUDA events: warm-up runs, then repetitions, each
// timed on its own (docs/gpu.md).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "calibrate/layer_gemms.hpp"
#include "plan/training.hpp"

namespace pipeplan::gpu {

struct TimingPlan {
  int warmup = 3;
  int repetitions = 20;
};

/// Buffers and handles on the current device, large enough for the biggest product asked for.
class GemmTimer {
 public:
  GemmTimer(DType dtype, std::size_t max_elements);
  ~GemmTimer();
  GemmTimer(const GemmTimer&) = delete;
  GemmTimer& operator=(const GemmTimer&) = delete;

  /// Enqueues `gemm` once on stream(): bf16/fp16 inputs with fp32 accumulation (W accumulates
  /// into an fp32 gradient, beta = 1, as Megatron-LM does), or plain fp32.
  void run_gemm(const Gemm& gemm);

  /// Milliseconds of each repetition of `gemm`.
  [[nodiscard]] std::vector<double> time_gemm(const Gemm& gemm, const TimingPlan& plan);

  /// Milliseconds of each repetition of `work`, which enqueues kernels on stream().
  [[nodiscard]] std::vector<double> time(const std::function<void()>& work, const TimingPlan& plan);

  [[nodiscard]] cudaStream_t stream() const { return stream_; }
  [[nodiscard]] cudaDataType element_type() const { return type_; }
  /// Scratch buffers of max_elements elements each.
  [[nodiscard]] void* buffer(int i) const { return buffers_[i]; }

 private:
  DType dtype_;
  cudaDataType type_;
  std::size_t max_elements_;
  cublasHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* buffers_[3] = {nullptr, nullptr, nullptr};
  float* accumulator_ = nullptr;  ///< fp32 output of weight gradients
};

}  // namespace pipeplan::gpu
