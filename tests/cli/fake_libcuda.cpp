// A stand-in for the CUDA driver (libcuda.so.1) that reports CUDA 12.4 and offers nothing else,
// so that gpu_absent.sh can check what pipeplan-gpu, built with a newer CUDA, says to a driver
// too old for it. The runtime asks the driver for every entry point through cuGetProcAddress;
// all but these three are "not found", which the runtime accepts while it checks the version.
#include <cstring>

extern "C" {

int cuDriverGetVersion(int* version) {
  *version = 12040;
  return 0;
}

int cuInit(unsigned /*flags*/) {
  return 0;
}

int cuGetProcAddress_v2(const char* symbol, void** function, int /*cuda_version*/, unsigned long long /*flags*/,
                        int* status) {
  *function = nullptr;
  if (std::strcmp(symbol, "cuDriverGetVersion") == 0) *function = reinterpret_cast<void*>(&cuDriverGetVersion);
  if (std::strcmp(symbol, "cuInit") == 0) *function = reinterpret_cast<void*>(&cuInit);
  if (std::strcmp(symbol, "cuGetProcAddress") == 0) *function = reinterpret_cast<void*>(&cuGetProcAddress_v2);
  if (status != nullptr) *status = *function != nullptr ? 0 : 1;  // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
  return *function != nullptr ? 0 : 500;                          // CUDA_ERROR_NOT_FOUND
}

}  // extern "C"
