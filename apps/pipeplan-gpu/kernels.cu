#include "kernels.hpp"

#include "calibrate/fill_values.hpp"
#include "gpu_error.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace pipeplan::gpu {

namespace {

template <class T>
__device__ float to_float(T v) {
  return static_cast<float>(v);
}
template <>
__device__ float to_float(__half v) {
  return __half2float(v);
}
template <>
__device__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <class T>
__device__ T from_float(float v) {
  return static_cast<T>(v);
}
template <>
__device__ __half from_float(float v) {
  return __float2half(v);
}
template <>
__device__ __nv_bfloat16 from_float(float v) {
  return __float2bfloat16(v);
}

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t count) {
  return static_cast<unsigned>((count + kThreads - 1) / kThreads);
}

template <class T>
__global__ void fill_kernel(T* data, std::size_t count, unsigned seed) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < count) data[i] = from_float<T>(pipeplan::fill_value(i, seed));
}

__device__ long long global_ns() {
  long long t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void gate_kernel(const volatile int* release, int* timed_out, long long timeout_ns) {
  const long long until = global_ns() + timeout_ns;
  while (*release == 0) {
    if (global_ns() > until) {
      *timed_out = 1;
      return;
    }
    __nanosleep(1000);
  }
}

template <class T>
__global__ void rms_norm_kernel(const T* x, T* y, std::size_t cols) {
  const T* row = x + blockIdx.x * cols;
  T* out = y + blockIdx.x * cols;
  __shared__ float partial[kThreads];
  float sum = 0;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) sum += to_float(row[c]) * to_float(row[c]);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float scale = rsqrtf(partial[0] / static_cast<float>(cols) + 1e-6f);
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = from_float<T>(to_float(row[c]) * scale);
}

template <class T>
__global__ void silu_mul_kernel(const T* gate, const T* up, T* out, std::size_t count) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  const float g = to_float(gate[i]);
  out[i] = from_float<T>(g / (1.0f + __expf(-g)) * to_float(up[i]));
}

template <class T>
__global__ void add_kernel(const T* a, const T* b, T* out, std::size_t count) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < count) out[i] = from_float<T>(to_float(a[i]) + to_float(b[i]));
}

template <class T>
__global__ void softmax_kernel(T* data, std::size_t cols) {
  T* row = data + blockIdx.x * cols;
  __shared__ float partial[kThreads];
  float best = -1e30f;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) best = fmaxf(best, to_float(row[c]));
  partial[threadIdx.x] = best;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + stride]);
    __syncthreads();
  }
  const float top = partial[0];
  __syncthreads();
  float sum = 0;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(to_float(row[c]) - top);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float total = partial[0];
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x)
    row[c] = from_float<T>(__expf(to_float(row[c]) - top) / total);
}

template <class T>
__global__ void gather_kernel(const T* table, const int* ids, T* out, std::size_t cols) {
  const T* from = table + static_cast<std::size_t>(ids[blockIdx.x]) * cols;
  T* to = out + blockIdx.x * cols;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) to[c] = from[c];
}

// Calls f with a null pointer of the element type of `type`.
template <class F>
void with_type(cudaDataType type, F f) {
  switch (type) {
    case CUDA_R_16BF:
      f(static_cast<__nv_bfloat16*>(nullptr));
      break;
    case CUDA_R_16F:
      f(static_cast<__half*>(nullptr));
      break;
    default:
      f(static_cast<float*>(nullptr));
      break;
  }
}

}  // namespace

void fill(void* data, std::size_t count, cudaDataType type, unsigned seed, cudaStream_t stream) {
  with_type(type, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    fill_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<T*>(data), count, seed);
  });
  PIPEPLAN_CUDA(cudaGetLastError());
}

void gate(const volatile int* release, int* timed_out, long long timeout_ns, cudaStream_t stream) {
  gate_kernel<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  PIPEPLAN_CUDA(cudaGetLastError());
}

void rms_norm(const void* x, void* y, std::size_t rows, std::size_t cols, cudaDataType type, cudaStream_t stream) {
  with_type(type, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    rms_norm_kernel<T>
        <<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(y), cols);
  });
  PIPEPLAN_CUDA(cudaGetLastError());
}

void silu_mul(const void* gate, const void* up, void* out, std::size_t count, cudaDataType type, cudaStream_t stream) {
  with_type(type, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    silu_mul_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<const T*>(gate), static_cast<const T*>(up), static_cast<T*>(out), count);
  });
  PIPEPLAN_CUDA(cudaGetLastError());
}

void add(const void* a, const void* b, void* out, std::size_t count, cudaDataType type, cudaStream_t stream) {
  with_type(type, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    add_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const T*>(a), static_cast<const T*>(b),
                                                              static_cast<T*>(out), count);
  });
  PIPEPLAN_CUDA(cudaGetLastError());
}

void softmax_rows(void* data, std::size_t rows, std::size_t cols, cudaDataType type, cudaStream_t stream) {
  with_type(type, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    softmax_kernel<T><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(static_cast<T*>(data), cols);
  });
  PIPEPLAN_CUDA(cudaGetLastError());
}

void gather_rows(const void* table, const int* ids, void* out, std::size_t rows, std::size_t cols, cudaDataType type,
                 cudaStream_t stream) {
  with_type(type, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    gather_kernel<T><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(static_cast<const T*>(table), ids,
                                                                           static_cast<T*>(out), cols);
  });
  PIPEPLAN_CUDA(cudaGetLastError());
}

}  // namespace pipeplan::gpu
