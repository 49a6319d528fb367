#include "gemm_timer.hpp"

#include "gpu_error.hpp"
#include "kernels.hpp"

namespace pipeplan::gpu {

GemmTimer::GemmTimer(DType dtype, std::size_t max_elements)
    : dtype_(dtype),
      type_(dtype == DType::BF16 ? CUDA_R_16BF : dtype == DType::FP16 ? CUDA_R_16F : CUDA_R_32F),
      max_elements_(max_elements) {
  PIPEPLAN_CUDA(cudaStreamCreate(&stream_));
  PIPEPLAN_CUDA(cudaEventCreate(&start_));
  PIPEPLAN_CUDA(cudaEventCreate(&stop_));
  PIPEPLAN_CUBLAS(cublasCreate(&handle_));
  PIPEPLAN_CUBLAS(cublasSetStream(handle_, stream_));
  // fp32 stays fp32: no TF32 tensor cores, as PyTorch's default for matrix products.
  PIPEPLAN_CUBLAS(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
  const std::size_t bytes = max_elements * static_cast<std::size_t>(element_bytes(dtype));
  for (void*& b : buffers_) {
    PIPEPLAN_CUDA(cudaMalloc(&b, bytes));
    fill(b, max_elements, type_, stream_);
  }
  PIPEPLAN_CUDA(cudaMalloc(reinterpret_cast<void**>(&accumulator_), max_elements * sizeof(float)));
  PIPEPLAN_CUDA(cudaMemsetAsync(accumulator_, 0, max_elements * sizeof(float), stream_));
  PIPEPLAN_CUDA(cudaStreamSynchronize(stream_));
}

GemmTimer::~GemmTimer() {
  // Destructors do not throw: a failure to free at exit changes no measurement.
  for (void* b : buffers_) cudaFree(b);
  cudaFree(accumulator_);
  if (handle_ != nullptr) cublasDestroy(handle_);
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

std::vector<double> GemmTimer::time(const std::function<void()>& work, const TimingPlan& plan) {
  for (int i = 0; i < plan.warmup; ++i) work();
  std::vector<double> samples;
  for (int i = 0; i < plan.repetitions; ++i) {
    PIPEPLAN_CUDA(cudaEventRecord(start_, stream_));
    work();
    PIPEPLAN_CUDA(cudaEventRecord(stop_, stream_));
    PIPEPLAN_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    PIPEPLAN_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    samples.push_back(ms);
  }
  return samples;
}

std::vector<double> GemmTimer::time_gemm(const Gemm& g, const TimingPlan& plan) {
  return time([&] { run_gemm(g); }, plan);
}

void GemmTimer::run_gemm(const Gemm& g) {
  const auto m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const std::size_t a_size = static_cast<std::size_t>(g.m * g.k), b_size = static_cast<std::size_t>(g.k * g.n),
                    c_size = static_cast<std::size_t>(g.m * g.n);
  if (static_cast<std::size_t>(g.batch) * std::max({a_size, b_size, c_size}) > max_elements_) {
    throw GpuError("internal: buffers too small for " + g.name);
  }
  // Weight gradients accumulate into fp32 (beta = 1); everything else writes its own type.
  const bool accumulate = g.phase == Phase::W && type_ != CUDA_R_32F;
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  void* c = accumulate ? static_cast<void*>(accumulator_) : buffers_[2];
  const cudaDataType c_type = accumulate ? CUDA_R_32F : type_;
  if (g.batch == 1) {
    PIPEPLAN_CUBLAS(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, buffers_[0], type_, m,
                                 buffers_[1], type_, k, &beta, c, c_type, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  } else {
    PIPEPLAN_CUBLAS(cublasGemmStridedBatchedEx(
        handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, buffers_[0], type_, m, static_cast<long long>(a_size),
        buffers_[1], type_, k, static_cast<long long>(b_size), &beta, c, c_type, m, static_cast<long long>(c_size),
        static_cast<int>(g.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

}  // namespace pipeplan::gpu
