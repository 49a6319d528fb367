#include "gpu_error.hpp"

#include <filesystem>

namespace pipeplan::gpu {

void fail_call(const char* call, const char* file, int line, const std::string& error) {
  throw GpuError(std::string(call) + " failed at " + std::filesystem::path(file).filename().string() + ":" +
                 std::to_string(line) + ": " + error);
}

}  // namespace pipeplan::gpu
