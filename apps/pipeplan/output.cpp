#include "output.hpp"

#include <iostream>

#include "io/atomic_file.hpp"

namespace pipeplan::cli {

namespace {

bool to_stdout(const std::string& path) {
  return path.empty() || path == "-";
}

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
  // Each piece goes into the unnamed file as it comes, which gets its name only when the whole
  // text is there: bounded memory, and still no half-written file (an exception discards it).
  AtomicFile file(path);
  TextSink sink([&](std::string_view piece) { file.write(piece); });
  write(sink);
  sink.flush();
  file.commit();
}

}  // namespace pipeplan::cli
