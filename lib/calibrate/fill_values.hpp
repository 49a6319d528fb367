#pragma once
// The values calibrate fills its buffers with (docs/gpu.md): a hash of each element's index,
// uniform in [-1, 1) with all 24 bits of a float's significand in use. Tensor cores run
// measurably faster on data with few significant bits (a repeating (i % 17 - 8) / 64 has
// five), which would flatter every GEMM. Plain C++ that nvcc compiles into the fill kernel,
// so the tests check the very function the GPU runs.
#include <cstdint>

#if defined(__CUDACC__)
#define PIPEPLAN_HOST_DEVICE __host__ __device__
#else
#define PIPEPLAN_HOST_DEVICE
#endif

namespace pipeplan {

/// SplitMix64's finaliser (Steele, Lea, Flood 2014) of the index, offset by the buffer's seed.
PIPEPLAN_HOST_DEVICE inline std::uint64_t fill_hash(std::uint64_t index, std::uint64_t seed) {
  std::uint64_t z = index + (seed + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// The hash's top 24 bits as a float in [-1, 1): k / 2^23 - 1 for k in [0, 2^24).
PIPEPLAN_HOST_DEVICE inline float fill_value(std::uint64_t index, std::uint64_t seed) {
  return static_cast<float>(fill_hash(index, seed) >> 40) * (1.0f / 8388608.0f) - 1.0f;
}

}  // namespace pipeplan
