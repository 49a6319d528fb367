#pragma once
// What `pipeplan-gpu info` reports: the devices, the driver and library versions (compile time
// and run time), and which device pairs reach each other by peer access.
#include <cstddef>
#include <string>
#include <vector>

namespace pipeplan::gpu {

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t memory_bytes = 0;
  int multiprocessors = 0;
  int compute_major = 0, compute_minor = 0;
  int clock_mhz = 0;         ///< peak SM clock
  int memory_clock_mhz = 0;  ///< peak memory clock
};

struct Inventory {
  int driver = 0, runtime = 0;                  ///< CUDA versions as 12040 = 12.4
  int cublas_compiled = 0, cublas_runtime = 0;  ///< as 130100 = 13.1.0
  int nccl_compiled = 0, nccl_runtime = 0;      ///< as 22809 = 2.28.9
  std::vector<DeviceInfo> devices;
  std::vector<std::vector<bool>> peer_access;  ///< [from][to]
};

/// Reads everything; throws NoGpu when there is no device or no driver.
[[nodiscard]] Inventory inventory();

/// The number of devices; throws NoGpu when there is none.
[[nodiscard]] int device_count();

[[nodiscard]] std::string inventory_text(const Inventory& inventory);

/// "12.4" from 12040, "2.28.9" from 22809, "13.1.0" from 130100.
[[nodiscard]] std::string cuda_version_text(int version);
[[nodiscard]] std::string nccl_version_text(int version);
[[nodiscard]] std::string cublas_version_text(int version);

}  // namespace pipeplan::gpu
