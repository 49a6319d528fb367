#include "model/large_allocator.hpp"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace pipeplan::large_memory {

namespace {

constexpr std::size_t kAlign = 64;

std::size_t round_up(std::size_t n, std::size_t to) {
  return (n + to - 1) / to * to;
}

#if defined(__linux__)

constexpr std::size_t kHugePage = 2 * 1024 * 1024;
constexpr std::size_t kChunk = 64 * 1024 * 1024;
// Empty chunks kept for the next simulation: a run of 1.6 million ops uses about 150 MiB.
constexpr std::size_t kKept = 256 * 1024 * 1024;

// A run of huge-page-aligned memory that arrays are carved from, front to back, like a stack:
// the last array carved is reused as soon as it is given back, the others once the whole chunk
// is empty. Arrays of one simulation are made together and die together, so little waits.
struct Chunk {
  char* base = nullptr;
  std::size_t size = 0;
  std::size_t used = 0;  // arrays are carved at base + used
  std::size_t live = 0;  // arrays carved and not given back
};

Chunk map_chunk(std::size_t bytes) {
  const std::size_t size = std::max(kChunk, round_up(bytes, kHugePage));
  // Map one huge page more than needed and trim, so the chunk starts on a huge-page boundary.
  void* raw = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  char* start = static_cast<char*>(raw);
  char* base = reinterpret_cast<char*>(round_up(reinterpret_cast<std::uintptr_t>(start), kHugePage));
  if (base > start) munmap(start, static_cast<std::size_t>(base - start));
  char* end = base + size;
  const std::size_t tail = static_cast<std::size_t>((start + size + kHugePage) - end);
  if (tail > 0) munmap(end, tail);
  // Only advice: where transparent huge pages are off, the chunk gets ordinary pages.
  madvise(base, size, MADV_HUGEPAGE);
  return Chunk{base, size, 0, 0};
}

class Pool {
 public:
  void* allocate(std::size_t bytes) {
    const std::lock_guard lock(mutex_);
    bytes = round_up(bytes, kAlign);
    if (chunks_.empty() || chunks_.back().size - chunks_.back().used < bytes) make_latest(bytes);
    Chunk& chunk = chunks_.back();
    void* p = chunk.base + chunk.used;
    chunk.used += bytes;
    ++chunk.live;
    return p;
  }

  void deallocate(void* p, std::size_t bytes) noexcept {
    const std::lock_guard lock(mutex_);
    char* at = static_cast<char*>(p);
    auto it = std::find_if(chunks_.begin(), chunks_.end(),
                           [&](const Chunk& c) { return at >= c.base && at < c.base + c.size; });
    if (it == chunks_.end()) return;
    // The array carved last is carved again next (a simulation's scratch arrays die before its
    // results); any other waits for its chunk to empty.
    if (at + round_up(bytes, kAlign) == it->base + it->used) it->used -= round_up(bytes, kAlign);
    if (--it->live > 0) return;
    it->used = 0;  // empty: kept, its pages mapped, for the next simulation's arrays
    release_beyond(kKept);
  }

 private:
  // Makes the latest chunk one with room for `bytes`: an empty one kept from before, or a new one.
  void make_latest(std::size_t bytes) {
    auto empty =
        std::find_if(chunks_.begin(), chunks_.end(), [&](const Chunk& c) { return c.live == 0 && c.size >= bytes; });
    if (empty != chunks_.end()) {
      std::rotate(empty, empty + 1, chunks_.end());
      return;
    }
    chunks_.push_back(map_chunk(bytes));
    release_beyond(kKept);
  }

  // Returns empty chunks to the system, oldest first, until those kept take at most `kept` bytes.
  void release_beyond(std::size_t kept) noexcept {
    std::size_t empty_bytes = 0;
    for (const Chunk& c : chunks_) empty_bytes += c.live == 0 ? c.size : 0;
    for (auto it = chunks_.begin(); it != chunks_.end() && empty_bytes > kept;) {
      if (it->live > 0 || it + 1 == chunks_.end()) {
        ++it;
        continue;
      }
      empty_bytes -= it->size;
      munmap(it->base, it->size);
      it = chunks_.erase(it);
    }
  }

  std::mutex mutex_;
  std::vector<Chunk> chunks_;  // the latest, which arrays are carved from, at the back
};

// Never destroyed: results held in static objects may give their arrays back after main.
Pool& pool() {
  static Pool* const instance = new Pool;
  return *instance;
}

#endif

}  // namespace

void* allocate(std::size_t bytes) {
#if defined(__linux__)
  if (bytes >= kThreshold) return pool().allocate(bytes);
#endif
  return ::operator new (bytes, std::align_val_t{kAlign});
}

void deallocate(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
  if (bytes >= kThreshold) {
    pool().deallocate(p, bytes);
    return;
  }
#endif
  ::operator delete (p, std::align_val_t{kAlign});
}

}  // namespace pipeplan::large_memory
