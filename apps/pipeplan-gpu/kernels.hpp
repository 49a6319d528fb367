#pragma once
// The element-wise kernels calibrate times beside the GEMMs (docs/gpu.md): the norms, the
// SwiGLU product, the residual adds, the softmax over attention scores, the embedding lookup
// and a fill for the buffers. Each runs on a stream; `type` is the element type.
#include <cuda_runtime.h>
#include <library_types.h>

#include <cstddef>

namespace pipeplan::gpu {

/// Fills `count` elements with lib/calibrate/fill_values.hpp's hashed values in [-1, 1), a
/// stream of its own per `seed`.
void fill(void* data, std::size_t count, cudaDataType type, unsigned seed, cudaStream_t stream);

/// A kernel that holds `stream` until the host sets `*release` (host-mapped memory) or
/// `timeout_ns` pass; then sets `*timed_out` if they did. The host queues the timed work behind
/// it, so that no repetition waits for a launch (docs/gpu.md).
void gate(const volatile int* release, int* timed_out, long long timeout_ns, cudaStream_t stream);

/// y = x / rms(x) * weight-free, per row of `cols`.
void rms_norm(const void* x, void* y, std::size_t rows, std::size_t cols, cudaDataType type, cudaStream_t stream);

/// out = silu(gate) * up, elementwise.
void silu_mul(const void* gate, const void* up, void* out, std::size_t count, cudaDataType type, cudaStream_t stream);

/// out = a + b, elementwise.
void add(const void* a, const void* b, void* out, std::size_t count, cudaDataType type, cudaStream_t stream);

/// Softmax of each row of `cols` values, in place, computed in fp32.
void softmax_rows(void* data, std::size_t rows, std::size_t cols, cudaDataType type, cudaStream_t stream);

/// out[i] = table[ids[i]] for `rows` rows of `cols` elements.
void gather_rows(const void* table, const int* ids, void* out, std::size_t rows, std::size_t cols, cudaDataType type,
                 cudaStream_t stream);

}  // namespace pipeplan::gpu
