#include "gpu_info.hpp"

#include <fmt/format.h>

#include "gpu_error.hpp"

namespace pipeplan::gpu {

namespace {

// The oldest Linux driver branch of each CUDA major version (NVIDIA's minor version
// compatibility: any driver of that branch or newer runs every minor release).
std::string driver_needed(int runtime) {
  const int major = runtime / 1000;
  return major >= 13 ? "580" : major == 12 ? "525" : major == 11 ? "450" : "a newer one";
}

}  // namespace

int device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count == 0) throw NoGpu("no GPU: no CUDA device found");
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  // A driver that is there but too old for this runtime is a failure to fix, not "no GPU".
  if ((status == cudaErrorInsufficientDriver && driver > 0) || status == cudaErrorSystemDriverMismatch ||
      status == cudaErrorCompatNotSupportedOnDevice) {
    throw GpuError(fmt::format(
        "the driver supports CUDA {}, but pipeplan-gpu was built with CUDA {}, which needs driver "
        "{} or newer: install a newer driver, or build with a CUDA toolkit the driver supports "
        "(cudaGetDeviceCount: {})",
        cuda_version_text(driver), cuda_version_text(runtime), driver_needed(runtime), cudaGetErrorString(status)));
  }
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver || status == cudaErrorInitializationError) {
    throw NoGpu(std::string("no GPU: no usable CUDA device or driver on this machine (cudaGetDeviceCount: ") +
                cudaGetErrorString(status) + ")");
  }
  PIPEPLAN_CUDA(status);
  return count;
}

std::string cuda_version_text(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}
std::string nccl_version_text(int v) {
  // Since 2.9 the code is major*10000 + minor*100 + patch; before, major*1000 + minor*100 + patch.
  return v >= 20900 ? fmt::format("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100)
                    : fmt::format("{}.{}.{}", v / 1000, (v % 1000) / 100, v % 100);
}
std::string cublas_version_text(int v) {
  return fmt::format("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100);
}

Inventory inventory() {
  Inventory inv;
  const int count = device_count();
  PIPEPLAN_CUDA(cudaDriverGetVersion(&inv.driver));
  PIPEPLAN_CUDA(cudaRuntimeGetVersion(&inv.runtime));
  inv.cublas_compiled = CUBLAS_VERSION;
  int major = 0, minor = 0, patch = 0;
  PIPEPLAN_CUBLAS(cublasGetProperty(MAJOR_VERSION, &major));
  PIPEPLAN_CUBLAS(cublasGetProperty(MINOR_VERSION, &minor));
  PIPEPLAN_CUBLAS(cublasGetProperty(PATCH_LEVEL, &patch));
  inv.cublas_runtime = major * 10000 + minor * 100 + patch;
  inv.nccl_compiled = NCCL_VERSION_CODE;
  PIPEPLAN_NCCL(ncclGetVersion(&inv.nccl_runtime));
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    PIPEPLAN_CUDA(cudaGetDeviceProperties(&prop, d));
    DeviceInfo info;
    info.index = d;
    info.name = prop.name;
    info.memory_bytes = prop.totalGlobalMem;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    PIPEPLAN_CUDA(cudaDeviceGetAttribute(&info.multiprocessors, cudaDevAttrMultiProcessorCount, d));
    int khz = 0;
    PIPEPLAN_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d));
    info.clock_mhz = khz / 1000;
    PIPEPLAN_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, d));
    info.memory_clock_mhz = khz / 1000;
    inv.devices.push_back(info);
  }
  inv.peer_access.assign(static_cast<std::size_t>(count), std::vector<bool>(static_cast<std::size_t>(count), false));
  for (int a = 0; a < count; ++a) {
    for (int b = 0; b < count; ++b) {
      int can = 0;
      if (a != b) PIPEPLAN_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
      inv.peer_access[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = a == b || can != 0;
    }
  }
  return inv;
}

std::string inventory_text(const Inventory& inv) {
  std::string text =
      fmt::format("driver: CUDA {}  runtime: CUDA {}\n", cuda_version_text(inv.driver), cuda_version_text(inv.runtime));
  text += fmt::format("cuBLAS: {} (compiled with {})  NCCL: {} (compiled with {})\n",
                      cublas_version_text(inv.cublas_runtime), cublas_version_text(inv.cublas_compiled),
                      nccl_version_text(inv.nccl_runtime), nccl_version_text(inv.nccl_compiled));
  for (const DeviceInfo& d : inv.devices) {
    text += fmt::format("device {}: {}, {:.1f} GiB, {} SMs, compute {}.{}, SM clock {} MHz, memory clock {} MHz\n",
                        d.index, d.name, static_cast<double>(d.memory_bytes) / (1024.0 * 1024 * 1024),
                        d.multiprocessors, d.compute_major, d.compute_minor, d.clock_mhz, d.memory_clock_mhz);
  }
  if (inv.devices.size() > 1) {
    text += "peer access (row reaches column):\n";
    for (std::size_t a = 0; a < inv.peer_access.size(); ++a) {
      text += fmt::format("  {}:", a);
      for (std::size_t b = 0; b < inv.peer_access.size(); ++b) text += inv.peer_access[a][b] ? " yes" : "  no";
      text += "\n";
    }
  }
  return text;
}

}  // namespace pipeplan::gpu
