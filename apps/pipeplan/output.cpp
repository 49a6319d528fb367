#include "output.hpp"

#include <iostream>

#include "io/atomic_file.hpp"

namespace pipeplan::cli {

namespace {

bool to_stdout(const std::string& path) { return path.empty() || path == "-"; }

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
    TextSink sink([](std::string_view piece) { std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
    write(sink);
    sink.flush();
    std::cout.flush();
    return;
  }
  // The file is replaced whole, so its text is gathered first; write_file_atomically takes it
  // in one piece.
  write_file_atomically(path, collect_text(write));
}

}  // namespace pipeplan::cli
