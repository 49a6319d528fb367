#pragma once
// Owners of CUDA-side handles: each remembers its device and destroys its handle with that
// device current (a cuBLAS handle or an event destroyed with another device current fails, or
// worse, silently acts on the wrong one), so that an error on any path frees what was made.
// Destructors never throw: a failure to free at exit changes no measurement.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "gpu_error.hpp"

namespace pipeplan::gpu {

/// Makes `device` current for a scope, then restores the one before.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    cudaGetDevice(&previous_);
    PIPEPLAN_CUDA(cudaSetDevice(device));
  }
  ~DeviceScope() { cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

/// One handle made on `device` by Traits::create and freed by Traits::destroy.
template <class Traits>
class DeviceOwned {
 public:
  using Handle = typename Traits::Handle;
  DeviceOwned() = default;
  template <class... Args>
  explicit DeviceOwned(int device, Args&&... args) : device_(device) {
    DeviceScope scope(device);
    handle_ = Traits::create(std::forward<Args>(args)...);
  }
  ~DeviceOwned() { reset(); }
  DeviceOwned(DeviceOwned&& other) noexcept : device_(other.device_), handle_(std::exchange(other.handle_, Handle{})) {}
  DeviceOwned& operator=(DeviceOwned&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  DeviceOwned(const DeviceOwned&) = delete;
  DeviceOwned& operator=(const DeviceOwned&) = delete;

  [[nodiscard]] Handle get() const { return handle_; }
  [[nodiscard]] int device() const { return device_; }

 private:
  void reset() {
    if (handle_ == Handle{}) return;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device_);
    Traits::destroy(handle_);
    cudaSetDevice(previous);
    handle_ = Handle{};
  }
  int device_ = 0;
  Handle handle_{};
};

struct StreamTraits {
  using Handle = cudaStream_t;
  static Handle create() {
    Handle s = nullptr;
    PIPEPLAN_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }
  static void destroy(Handle s) { cudaStreamDestroy(s); }
};

struct EventTraits {
  using Handle = cudaEvent_t;
  static Handle create() {
    Handle e = nullptr;
    PIPEPLAN_CUDA(cudaEventCreate(&e));
    return e;
  }
  static void destroy(Handle e) { cudaEventDestroy(e); }
};

struct CublasTraits {
  using Handle = cublasHandle_t;
  static Handle create() {
    Handle h = nullptr;
    PIPEPLAN_CUBLAS(cublasCreate(&h));
    return h;
  }
  static void destroy(Handle h) { cublasDestroy(h); }
};

struct BufferTraits {
  using Handle = void*;
  static Handle create(std::size_t bytes) {
    void* p = nullptr;
    PIPEPLAN_CUDA(cudaMalloc(&p, bytes == 0 ? 1 : bytes));
    return p;
  }
  static void destroy(Handle p) { cudaFree(p); }
};

using Stream = DeviceOwned<StreamTraits>;
using Event = DeviceOwned<EventTraits>;
using CublasHandle = DeviceOwned<CublasTraits>;
using DeviceBuffer = DeviceOwned<BufferTraits>;

}  // namespace pipeplan::gpu
