#include "output.hpp"

#include "io/atomic_file.hpp"
#include "progress.hpp"
#include "standard_output.hpp"

namespace pipeplan::cli {

namespace {

bool to_stdout(const std::string& path) {
  return path.empty() || path == "-";
}

}  // namespace

void emit(const std::string& path, const std::string& content) {
  const Activity doing("writing " + (to_stdout(path) ? std::string("standard output") : path));
  if (to_stdout(path)) {
    write_standard_output(content);
    return;
  }
  write_file_atomically(path, content);
}

void emit_streamed(const std::string& path, const std::function<void(TextSink&)>& write) {
  // A trace of many iterations can take minutes and many GiB: the line says how much so far.
  const Activity doing("writing " + (to_stdout(path) ? std::string("standard output") : path));
  if (to_stdout(path)) {
    // Each piece is checked as it goes, so a stream to a full disk stops at its first failure;
    // main() flushes and closes standard output and reports what fails there.
    TextSink sink([](std::string_view piece) {
      write_standard_output(piece);
      count_bytes_written(piece.size());
    });
    write(sink);
    sink.flush();
    return;
  }
  // Each piece goes into the unnamed file as it comes, which gets its name only when the whole
  // text is there: bounded memory, and still no half-written file (an exception discards it).
  AtomicFile file(path);
  TextSink sink([&](std::string_view piece) {
    file.write(piece);
    count_bytes_written(piece.size());
  });
  write(sink);
  sink.flush();
  file.commit();
}

}  // namespace pipeplan::cli
