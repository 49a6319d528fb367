#include "early_checks.hpp"

#include <sys/stat.h>

#include "../pipeplan/command.hpp"
#include "../pipeplan/file_roles.hpp"
#include "estimate/gpu_catalog.hpp"
#include "io/atomic_file.hpp"
#include "model/error.hpp"

namespace pipeplan::gpu {

namespace {

// Opens `path` as the write will (AtomicFile) and lets it go unwritten: an unnamed file
// vanishes, so nothing is left behind. A FIFO is skipped: opening it would wait for a reader.
void check_writable(const std::string& path) {
  if (path.empty() || path == "-") return;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) return;
  const AtomicFile probe(path);
}

}  // namespace

void check_calibrate_early(const std::string& model, const std::string& output, const CalibrateRequest& request) {
  cli::check_file_roles({{"--model", model}, {"-o", output, true}});
  check_writable(output);
  if (!request.gpu_name.empty()) {
    try {
      (void)gpu_named(request.gpu_name);
    } catch (const Error& e) {
      throw cli::UsageError(std::string("--gpu: ") + e.what());
    }
  }
}

void check_replay_early(const ReplayRequest& request) {
  cli::check_file_roles({{"the schedule", request.schedule},
                         {"--profile", request.profile},
                         {"-o", request.output, true},
                         {"--trace", request.trace, true}});
  check_writable(request.output);
  check_writable(request.trace);
}

}  // namespace pipeplan::gpu
