#pragma once
// A large text written piece by piece in bounded memory: a writer appends to a buffer, which is
// handed to its destination (stdout, a file, a string) each time it holds a chunk, and once more
// at the end. The writers of results, traces and pictures stream through it instead of building
// the whole text (or a JSON document of it) first (docs/performance.md).
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace pipeplan {

class TextSink {
 public:
  using Destination = std::function<void(std::string_view)>;

  /// Hands the text on in pieces of about `chunk` bytes.
  explicit TextSink(Destination destination, std::size_t chunk = std::size_t{1} << 20);

  TextSink& operator<<(std::string_view text) {
    buffer_.append(text);
    return *this;
  }
  TextSink& operator<<(char c) {
    buffer_ += c;
    return *this;
  }

  /// The pending text, for formatters that append in place (fmt::format_to, to_chars);
  /// call flush_if_full() after a piece.
  [[nodiscard]] std::string& buffer() { return buffer_; }

  /// Hands the buffer on once it holds a chunk. Writers call it after each record (an op, an
  /// event), so that the buffer stays near one chunk whatever the size of the text.
  void flush_if_full() {
    if (buffer_.size() >= chunk_) flush();
  }

  /// Hands on what is pending; the writer's last call.
  void flush();

 private:
  Destination destination_;
  std::size_t chunk_;
  std::string buffer_;
};

/// The whole text `write` produces, as one string (tests, and callers that need it whole).
template <class Write>
[[nodiscard]] std::string collect_text(Write&& write) {
  std::string text;
  TextSink sink([&](std::string_view piece) { text.append(piece); });
  write(sink);
  sink.flush();
  return text;
}

}  // namespace pipeplan
