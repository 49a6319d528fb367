#include "output.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>

#include "io/atomic_file.hpp"

namespace pipeplan::cli {

namespace {

bool to_stdout(const std::string& path) {
  return path.empty() || path == "-";
}

// A text gathered with realloc: a large block grows by remapping its pages (glibc's mremap)
// instead of being copied into fresh ones, so gathering a trace of hundreds of megabytes
// touches its pages once; with a string, or any vector, it touched twice as many, and zeroing
// fresh pages took a fifth of `export --format chrome -o` (docs/performance.md).
class GatheredText {
 public:
  GatheredText() = default;
  GatheredText(const GatheredText&) = delete;
  GatheredText& operator=(const GatheredText&) = delete;
  ~GatheredText() { std::free(data_); }

  void append(std::string_view piece) {
    if (size_ + piece.size() > capacity_) {
      const std::size_t capacity = std::max(2 * capacity_, size_ + piece.size());
      void* grown = std::realloc(data_, capacity);
      if (grown == nullptr) throw std::bad_alloc();
      data_ = static_cast<char*>(grown);
      capacity_ = capacity;
    }
    std::memcpy(data_ + size_, piece.data(), piece.size());
    size_ += piece.size();
  }
  [[nodiscard]] std::string_view view() const { return {data_, size_}; }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace

void emit(const std::string& path, const std::string& content) {
  if (to_stdout(path)) {
    std::cout << content << std::flush;
    return;
  }
  write_file_atomically(path, content);
}

void emit_streamed(const std::string& path, const std::function<void(TextSink&)>& write) {
  if (to_stdout(path)) {
    TextSink sink(
        [](std::string_view piece) { std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
    write(sink);
    sink.flush();
    std::cout.flush();
    return;
  }
  // The file is replaced whole, so its text is gathered first: write_file_atomically takes it
  // in one piece.
  GatheredText text;
  TextSink sink([&](std::string_view piece) { text.append(piece); });
  write(sink);
  sink.flush();
  write_file_atomically(path, text.view());
}

}  // namespace pipeplan::cli
