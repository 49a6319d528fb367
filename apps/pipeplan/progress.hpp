#pragma once
// What a long command is doing, on stderr while it runs (issue 31, item 9: generate, simulate,
// export and compare showed nothing on a terminal during runs of a minute). One line, redrawn in
// place, once the command has run for a second, and only when stderr is a terminal: a pipe or a
// file gets nothing. A count is shown with its total only where the total is known exactly.
#include <cstddef>
#include <string>

namespace pipeplan::cli {

/// While it lives, the line says `what` ("generating zb: 4096 stages x 4096 micro-batches") and
/// the seconds since the command started. Activities nest: the inner one is shown, and the
/// outer one again when the inner ends. The last to end clears the line.
class Activity {
 public:
  explicit Activity(std::string what);
  ~Activity();
  Activity(const Activity&) = delete;
  Activity& operator=(const Activity&) = delete;

  /// "NAME: DONE / TOTAL UNIT" from now on ("planning: 120 / 480 configurations"); total 0
  /// shows DONE alone.
  void count(std::size_t done, std::size_t total, const char* unit);

 private:
  std::string previous_;
};

/// "12.3 GiB" written so far, for a stream whose size is not known before it ends.
void count_bytes_written(std::size_t bytes);

}  // namespace pipeplan::cli
