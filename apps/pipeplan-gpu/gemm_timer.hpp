#pragma once
// Times GEMMs and kernels on one device with CUDA events (docs/gpu.md). The repetitions run
// back to back behind a gate kernel that holds the stream until the host has queued them all,
// with an event between each two: no repetition includes the host's launch latency (several
// µs, more than a small kernel takes), and the card never idles between them.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "calibrate/layer_gemms.hpp"
#include "cuda_owners.hpp"
#include "estimate/training.hpp"

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

  /// Enqueues `gemm` once on stream(), in its transposes (cublas_call): bf16/fp16 inputs with
  /// fp32 accumulation (W accumulates into an fp32 gradient, beta = 1, as Megatron-LM does), or
  /// plain fp32.
  void run_gemm(const Gemm& gemm);

  /// Milliseconds of each repetition of `gemm`.
  [[nodiscard]] std::vector<double> time_gemm(const Gemm& gemm, const TimingPlan& plan);

  /// Milliseconds of each repetition of `work`, which enqueues kernels on stream().
  [[nodiscard]] std::vector<double> time(const std::function<void()>& work, const TimingPlan& plan);

  /// Runs `gemm` for at least `seconds` of wall time, so that the card leaves its idle clocks
  /// before anything is timed.
  void warm_up(const Gemm& gemm, double seconds);

  /// Whether the last time() let the gate open on its timeout (the host queued too slowly, or
  /// the launch queue filled): its repetitions may then include launch gaps.
  [[nodiscard]] bool gate_timed_out() const { return *timed_out_ != 0; }

  [[nodiscard]] cudaStream_t stream() const { return stream_.get(); }
  [[nodiscard]] cudaDataType element_type() const { return type_; }
  /// Scratch buffers of max_elements elements each.
  [[nodiscard]] void* buffer(int i) const { return buffers_[i].get(); }

 private:
  int device_ = 0;
  cudaDataType type_;
  std::size_t max_elements_;
  Stream stream_;
  CublasHandle handle_;
  std::vector<Event> events_;  ///< repetitions + 1, made as needed
  DeviceBuffer buffers_[3];
  DeviceBuffer accumulator_;  ///< fp32 output of weight gradients
  int* release_ = nullptr;    ///< host-mapped: the gate's flag
  int* timed_out_ = nullptr;  ///< host-mapped: the gate's report
};

}  // namespace pipeplan::gpu
