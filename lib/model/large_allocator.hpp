#pragma once
// Memory for the big per-op arrays of a simulation: every op's timing and every memory change,
// about 64 bytes an op, 100 MB for 1.6 million ops. Taken from the system in 4 KiB pages, each
// first touch is a page fault; on virtual machines one costs 10 to 15 us, so filling 100 MB took
// four times longer than simulating it (docs/performance.md). Large arrays are therefore carved
// from chunks the kernel is asked to back with 2 MiB pages (transparent huge pages, where the
// system allows them in madvise mode): one fault instead of 512. Small arrays go to operator new.
#include <cstddef>
#include <vector>

namespace pipeplan {

namespace large_memory {

/// Arrays of at least this many bytes come from the huge-page chunks.
inline constexpr std::size_t kThreshold = 64 * 1024;

/// `bytes` bytes aligned to 64; throws std::bad_alloc when the system has no memory left.
[[nodiscard]] void* allocate(std::size_t bytes);

/// Gives back what allocate(bytes) returned. The array allocated last is reused at once; others
/// when every array of their chunk is given back. Empty chunks are kept for the next arrays, up
/// to 256 MiB of them; beyond that they go back to the system.
void deallocate(void* p, std::size_t bytes) noexcept;

}  // namespace large_memory

/// A stateless allocator for std::vector that takes large arrays from large_memory.
template <class T>
struct LargeAllocator {
  using value_type = T;

  LargeAllocator() = default;
  template <class U>
  LargeAllocator(const LargeAllocator<U>& /*other*/) noexcept {}  // NOLINT: converting, as allocators must

  [[nodiscard]] T* allocate(std::size_t n) { return static_cast<T*>(large_memory::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { large_memory::deallocate(p, n * sizeof(T)); }

  template <class U>
  friend bool operator==(const LargeAllocator& /*a*/, const LargeAllocator<U>& /*b*/) noexcept {
    return true;
  }
};

/// A vector with an entry per op (timings, memory changes, output ends): when large, backed by
/// huge pages, since filling fresh memory costs more than simulating it.
template <class T>
using LargeVector = std::vector<T, LargeAllocator<T>>;

}  // namespace pipeplan
