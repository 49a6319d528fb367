#include "gemm_timer.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "gpu_error.hpp"
#include "kernels.hpp"

namespace pipeplan::gpu {

namespace {

int current_device() {
  int d = 0;
  PIPEPLAN_CUDA(cudaGetDevice(&d));
  return d;
}

// How long the gate may hold a stream: far more than queuing a few hundred launches takes.
constexpr long long kGateTimeoutNs = 1'000'000'000;

}  // namespace

GemmTimer::GemmTimer(DType dtype, std::size_t max_elements)
    : device_(current_device()),
      type_(dtype == DType::BF16   ? CUDA_R_16BF
            : dtype == DType::FP16 ? CUDA_R_16F
                                   : CUDA_R_32F),
      max_elements_(max_elements),
      stream_(device_),
      handle_(device_) {
  PIPEPLAN_CUBLAS(cublasSetStream(handle_.get(), stream()));
  // fp32 stays fp32: no TF32 tensor cores, as PyTorch's default for matrix products.
  PIPEPLAN_CUBLAS(cublasSetMathMode(handle_.get(), CUBLAS_DEFAULT_MATH));
  const std::size_t bytes = max_elements * static_cast<std::size_t>(element_bytes(dtype));
  for (unsigned i = 0; i < 3; ++i) {
    buffers_[i] = DeviceBuffer(device_, bytes);
    fill(buffers_[i].get(), max_elements, type_, i, stream());
  }
  accumulator_ = DeviceBuffer(device_, max_elements * sizeof(float));
  PIPEPLAN_CUDA(cudaMemsetAsync(accumulator_.get(), 0, max_elements * sizeof(float), stream()));
  PIPEPLAN_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&release_), 2 * sizeof(int), cudaHostAllocMapped));
  timed_out_ = release_ + 1;
  *release_ = *timed_out_ = 0;
  PIPEPLAN_CUDA(cudaStreamSynchronize(stream()));
}

GemmTimer::~GemmTimer() {
  // The owners free the rest, each with its device current.
  if (release_ != nullptr) cudaFreeHost(release_);
}

std::vector<double> GemmTimer::time(const std::function<void()>& work, const TimingPlan& plan) {
  DeviceScope scope(device_);
  for (int i = 0; i < plan.warmup; ++i) work();
  while (events_.size() < static_cast<std::size_t>(plan.repetitions) + 1) events_.emplace_back(device_);
  PIPEPLAN_CUDA(cudaStreamSynchronize(stream()));
  // Hold the stream, queue every repetition between events, then open the gate.
  *release_ = 0;
  *timed_out_ = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  gate(release_, timed_out_, kGateTimeoutNs, stream());
  PIPEPLAN_CUDA(cudaEventRecord(events_[0].get(), stream()));
  for (int i = 0; i < plan.repetitions; ++i) {
    work();
    PIPEPLAN_CUDA(cudaEventRecord(events_[static_cast<std::size_t>(i) + 1].get(), stream()));
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *static_cast<volatile int*>(release_) = 1;
  PIPEPLAN_CUDA(cudaStreamSynchronize(stream()));
  std::vector<double> samples;
  for (std::size_t i = 0; i < static_cast<std::size_t>(plan.repetitions); ++i) {
    float ms = 0;
    PIPEPLAN_CUDA(cudaEventElapsedTime(&ms, events_[i].get(), events_[i + 1].get()));
    samples.push_back(ms);
  }
  return samples;
}

std::vector<double> GemmTimer::time_gemm(const Gemm& g, const TimingPlan& plan) {
  return time([&] { run_gemm(g); }, plan);
}

void GemmTimer::warm_up(const Gemm& g, double seconds) {
  DeviceScope scope(device_);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 10; ++i) run_gemm(g);
    PIPEPLAN_CUDA(cudaStreamSynchronize(stream()));
  }
}

void GemmTimer::run_gemm(const Gemm& g) {
  const std::size_t a_size = static_cast<std::size_t>(g.m * g.k), b_size = static_cast<std::size_t>(g.k * g.n),
                    c_size = static_cast<std::size_t>(g.m * g.n);
  if (static_cast<std::size_t>(g.batch) * std::max({a_size, b_size, c_size}) > max_elements_) {
    throw GpuError("internal: buffers too small for " + g.name);
  }
  // Weight gradients accumulate into fp32 (beta = 1); everything else writes its own type.
  const bool accumulate = g.phase == Phase::W && type_ != CUDA_R_32F;
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  void* c = accumulate ? accumulator_.get() : buffer(2);
  const cudaDataType c_type = accumulate ? CUDA_R_32F : type_;
  // Column-major: cuBLAS's A is the row-major product's B operand (buffer 1), its B the A (buffer 0).
  const CublasCall k = cublas_call(g);
  const auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
  const auto i = [](long long v) { return static_cast<int>(v); };
  if (g.batch == 1) {
    PIPEPLAN_CUBLAS(cublasGemmEx(handle_.get(), op(k.transa), op(k.transb), i(k.m), i(k.n), i(k.k), &alpha, buffer(1),
                                 type_, i(k.lda), buffer(0), type_, i(k.ldb), &beta, c, c_type, i(k.ldc),
                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  } else {
    PIPEPLAN_CUBLAS(cublasGemmStridedBatchedEx(
        handle_.get(), op(k.transa), op(k.transb), i(k.m), i(k.n), i(k.k), &alpha, buffer(1), type_, i(k.lda),
        static_cast<long long>(b_size), buffer(0), type_, i(k.ldb), static_cast<long long>(a_size), &beta, c, c_type,
        i(k.ldc), static_cast<long long>(c_size), static_cast<int>(g.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

}  // namespace pipeplan::gpu
