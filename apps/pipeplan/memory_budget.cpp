#include "memory_budget.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <limits>
#include <optional>

#include <sys/stat.h>

#include "io/cost_flags.hpp"
#include "io/memory_estimate.hpp"
#include "io/schedule_json.hpp"
#include "model/error.hpp"
#include "model/lowered.hpp"
#include "model/parallel_for.hpp"
#include "model/size_string.hpp"
#include "progress.hpp"

namespace pipeplan::cli {

namespace {

std::string& max_memory_flag() {
  static std::string text;  // one command per process: the one that parsed sets it
  return text;
}

// What the program takes beside its work: the code, the libraries, a thread's stack (8 MiB
// under glibc's default) and the allocator's slack.
constexpr Bytes kProgramBytes = Bytes{64} << 20;

void take_least(MemoryBudget& budget, std::optional<Bytes> bytes, const char* source) {
  if (bytes && *bytes > 0 && (budget.bytes == 0 || *bytes < budget.bytes)) budget = {*bytes, source};
}

std::optional<Bytes> physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::nullopt;
  return static_cast<Bytes>(pages) * page;
}

std::optional<Bytes> resource_limit(int resource) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  if (limit.rlim_cur > static_cast<rlim_t>(std::numeric_limits<Bytes>::max())) return std::nullopt;
  return static_cast<Bytes>(limit.rlim_cur);
}

// cgroup v2's limit of the process's group ("max" when none); only the root group is read, which
// is the process's own inside a container.
std::optional<Bytes> cgroup_limit() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    return static_cast<Bytes>(std::stoll(text));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

void add_max_memory_option(CLI::App& sub) {
  max_memory_flag().clear();  // the page runs several commands in one process (web/pipeplan_web.cpp)
  sub.add_option("--max-memory", max_memory_flag(),
                 "Refuse work estimated to need more memory than SIZE (default: what the machine allows: its memory, "
                 "ulimit -v, the cgroup's limit)")
      ->type_name("SIZE");
}

MemoryBudget memory_budget() {
  if (!max_memory_flag().empty()) return {parse_size_flag(max_memory_flag(), "--max-memory"), "--max-memory"};
  MemoryBudget budget;
  take_least(budget, physical_memory(), "the machine's memory");
  take_least(budget, cgroup_limit(), "the cgroup's memory.max");
  take_least(budget, resource_limit(RLIMIT_AS), "ulimit -v");
  take_least(budget, resource_limit(RLIMIT_DATA), "ulimit -d");
  return budget;
}

void check_memory(Bytes estimate, const std::string& what, const std::string& large) {
  const MemoryBudget budget = memory_budget();
  // --max-memory bounds the work; the machine's limits hold the program too.
  const Bytes program = budget.source == "--max-memory" ? 0 : kProgramBytes;
  if (budget.bytes == 0 || estimate + program <= budget.bytes) return;
  throw Error(what + " needs about " + format_size(estimate) + " of memory, more than the " +
              format_size(budget.bytes) + " that " + budget.source + " allows: " + large +
              " make it that large (--max-memory SIZE sets the limit, if the estimate is wrong)");
}

WorkEstimate generation_estimate(const Generator& generator, const RequestFlags& flags, const SimOptions& objective,
                                 bool as_text) {
  GenerateRequest request = flags.request;
  request.chunks = generator.chunks_for(flags.chunks);
  // The search's workers: one per core (parallel_workers), whatever the count of candidates.
  const std::size_t workers = parallel_workers(std::size_t{1} << 20);
  WorkEstimate e;
  e.bytes = generation_bytes(generator, request, objective.iterations, workers, as_text);
  e.ops = generated_ops(request);
  e.large = "--stages " + std::to_string(request.devices) + " x --chunks " + std::to_string(request.chunks) +
            " x --microbatches " + std::to_string(request.microbatches) + " (up to " +
            std::to_string(generated_ops(request)) + " ops" +
            (generator.uses_costs ? ", timed by each of " + std::to_string(workers) + " workers of the search" : "") +
            ")";
  return e;
}

WorkEstimate timing_estimate(const Schedule& schedule, const SimOptions& options, const CommFlags& comm,
                             const std::string& source) {
  RunShape shape;
  shape.ops = static_cast<long long>(schedule.op_count());
  shape.iterations = options.iterations;
  shape.timeline = options.record_timeline;
  shape.comm = comm_mode(comm) != CommMode::Overlap;
  WorkEstimate e;
  e.bytes = timing_bytes(shape);
  e.ops = shape.ops;
  e.large = source + "'s " + std::to_string(shape.ops) + " ops" +
            (shape.iterations > 1 ? " x --iterations " + std::to_string(shape.iterations) : "");
  return e;
}

void check_input_memory(const std::string& path, Bytes shortest_entry, Bytes written_per_entry) {
  struct stat info {};
  if (path == "-" || stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;
  const Bytes text = info.st_size;
  const Bytes entries = text / shortest_entry;
  // The text whole, and each entry as an Op of the schedule and a LoweredAction of its posts.
  const Bytes bytes =
      text + schedule_bytes(entries) + (static_cast<Bytes>(sizeof(LoweredAction)) + written_per_entry) * entries;
  check_memory(bytes, "reading " + path,
               path + "'s " + format_size(text) + " (up to " + std::to_string(entries) + " ops)");
}

LoweredSchedule read_schedule_input(const std::string& path) {
  check_input_memory(path, kShortestJsonEntry);
  const Activity doing("reading " + path);
  return read_lowered_file(path);
}

LoweredRun time_checked(const LoweredSchedule& file, const CostModel& costs, const SimOptions& options,
                        const CommFlags& comm, const std::string& what) {
  const WorkEstimate need = timing_estimate(file.schedule, options, comm, what);
  check_memory(need.bytes, "timing " + what, need.large);
  const Activity doing("timing " + need.large);
  return simulate_under(file, costs, options, comm, what);
}

}  // namespace pipeplan::cli
