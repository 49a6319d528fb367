#include "nvml_clocks.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

namespace pipeplan::gpu {

namespace {

// From nvml.h: nvmlReturn_t is an int (0 success), nvmlDevice_t an opaque pointer,
// NVML_CLOCK_SM 1, NVML_CLOCK_MEM 2, NVML_TEMPERATURE_GPU 0.
using Device = void*;
using InitFn = int (*)();
using ByBusFn = int (*)(const char*, Device*);
using ClockFn = int (*)(Device, int, unsigned*);
using TemperatureFn = int (*)(Device, int, unsigned*);
using PowerFn = int (*)(Device, unsigned*);
using ReasonsFn = int (*)(Device, unsigned long long*);

struct Nvml {
  void* library = nullptr;
  ByBusFn by_bus = nullptr;
  ClockFn clock = nullptr;
  TemperatureFn temperature = nullptr;
  PowerFn power = nullptr;
  ReasonsFn reasons = nullptr;
  std::string why;
};

template <class F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

// Opened and initialised once for the process; left open (NVML's shutdown at exit is optional).
const Nvml& nvml() {
  static const Nvml loaded = [] {
    Nvml n;
    n.library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (n.library == nullptr) {
      n.why = "libnvidia-ml.so.1 (NVML, part of the driver) could not be opened";
      return n;
    }
    const auto init = symbol<InitFn>(n.library, "nvmlInit_v2");
    n.by_bus = symbol<ByBusFn>(n.library, "nvmlDeviceGetHandleByPciBusId_v2");
    n.clock = symbol<ClockFn>(n.library, "nvmlDeviceGetClockInfo");
    n.temperature = symbol<TemperatureFn>(n.library, "nvmlDeviceGetTemperature");
    n.power = symbol<PowerFn>(n.library, "nvmlDeviceGetPowerUsage");
    n.reasons = symbol<ReasonsFn>(n.library, "nvmlDeviceGetCurrentClocksEventReasons");
    if (n.reasons == nullptr) n.reasons = symbol<ReasonsFn>(n.library, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (init == nullptr || n.by_bus == nullptr || n.clock == nullptr || n.reasons == nullptr) {
      n.why = "libnvidia-ml.so.1 lacks the functions used";
    } else if (const int status = init(); status != 0) {
      n.why = "nvmlInit_v2 failed with NVML error " + std::to_string(status);
    }
    return n;
  }();
  return loaded;
}

}  // namespace

std::optional<ClockReading> read_clocks(int device, std::string& why) {
  const Nvml& n = nvml();
  if (!n.why.empty()) {
    why = n.why;
    return std::nullopt;
  }
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) {
    why = "cudaDeviceGetPCIBusId failed";
    return std::nullopt;
  }
  Device handle = nullptr;
  if (const int status = n.by_bus(bus, &handle); status != 0) {
    why = "NVML does not know the device at " + std::string(bus) + " (error " + std::to_string(status) + ")";
    return std::nullopt;
  }
  ClockReading r;
  unsigned long long reasons = 0;
  if (n.clock(handle, 1, &r.sm_mhz) != 0 || n.clock(handle, 2, &r.memory_mhz) != 0 ||
      n.reasons(handle, &reasons) != 0) {
    why = "NVML could not read the clocks of the device at " + std::string(bus);
    return std::nullopt;
  }
  r.reasons = reasons;
  unsigned milliwatts = 0;
  if (n.temperature != nullptr) n.temperature(handle, 0, &r.temperature_c);
  if (n.power != nullptr && n.power(handle, &milliwatts) == 0) r.power_w = milliwatts / 1000.0;
  return r;
}

}  // namespace pipeplan::gpu
