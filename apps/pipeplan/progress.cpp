#include "progress.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>

#include "model/size_string.hpp"
#include "model/threads.hpp"

namespace pipeplan::cli {

namespace {

using Clock = std::chrono::steady_clock;

// The line and the thread that draws it: one per process, started by the first activity on a
// terminal and stopped when the program ends.
class Ticker {
 public:
  static Ticker& get() {
    static Ticker ticker;
    return ticker;
  }

  std::string set(std::string what) {
    std::lock_guard lock(mutex_);
    std::string previous = std::move(what_);
    what_ = std::move(what);
    done_ = total_ = 0;
    unit_ = nullptr;
    bytes_ = 0;
    // The playground's build has no threads (HACKING.md, "Threads"), and no terminal either.
    if (terminal_ && threads_available() && !started_ && !what_.empty()) {
      started_ = true;
      thread_.start([this] { run(); });
    }
    if (what_.empty() && shown_) {
      std::fputs("\r\033[K", stderr);
      shown_ = false;
    }
    return previous;
  }

  void count(std::size_t done, std::size_t total, const char* unit) {
    std::lock_guard lock(mutex_);
    done_ = done;
    total_ = total;
    unit_ = unit;
  }

  void bytes(std::size_t bytes) { bytes_ += bytes; }

  ~Ticker() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
      if (shown_) std::fputs("\r\033[K", stderr);
      shown_ = false;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  Ticker() = default;

  void run() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      wake_.wait_for(lock, std::chrono::milliseconds(200));
      if (stop_ || what_.empty()) continue;
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start_).count();
      if (seconds < 1) continue;
      std::string line = what_;
      if (unit_ != nullptr) {
        line += ": " + std::to_string(done_) + (total_ > 0 ? " / " + std::to_string(total_) : "") + " " + unit_;
      } else if (bytes_ > 0) {
        line += ": " + format_size(static_cast<Bytes>(bytes_.load())) + " written";
      }
      line += " (" + std::to_string(seconds) + " s)";
      std::fprintf(stderr, "\r%s\033[K", line.c_str());
      std::fflush(stderr);
      shown_ = true;
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  ThreadGroup thread_;
  bool started_ = false;
  const bool terminal_ = isatty(STDERR_FILENO) != 0;
  const Clock::time_point start_ = Clock::now();  // the first activity's start: close to the command's
  std::string what_;
  std::size_t done_ = 0, total_ = 0;
  const char* unit_ = nullptr;
  std::atomic<std::size_t> bytes_{0};
  bool shown_ = false;
  bool stop_ = false;
};

}  // namespace

Activity::Activity(std::string what) : previous_(Ticker::get().set("pipeplan: " + std::move(what))) {}

Activity::~Activity() {
  (void)Ticker::get().set(std::move(previous_));
}

void Activity::count(std::size_t done, std::size_t total, const char* unit) {
  Ticker::get().count(done, total, unit);
}

void count_bytes_written(std::size_t bytes) {
  Ticker::get().bytes(bytes);
}

}  // namespace pipeplan::cli
