// pipeplan validate: every problem of a schedule file; exit 0 when valid, 1 otherwise.
#include <memory>
#include <optional>

#include "comm_options.hpp"
#include "command.hpp"
#include "cost_options.hpp"
#include "file_roles.hpp"
#include "io/reports.hpp"
#include "io/schedule_json.hpp"
#include "memory_budget.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "validate/validator.hpp"

namespace pipeplan::cli {

namespace {

struct ValidateCommandOptions {
  std::string file;
  CostOptions costs;
  std::string memory_limit;
  CommFlags comm;
  bool json = false;
};

}  // namespace

Runner add_validate(CLI::App& sub) {
  auto o = std::make_shared<ValidateCommandOptions>();
  sub.add_option("FILE", o->file, "Schedule JSON")->required()->type_name("FILE")->check(file_name());
  add_cost_options(sub, o->costs);
  sub.add_option("--memory-limit", o->memory_limit, "Per-device memory limit, e.g. 24GiB (needs memory costs)")
      ->type_name("SIZE");
  add_comm_options(sub, o->comm);
  sub.add_flag("--json", o->json, "Print the problems as JSON");
  return [o] {
    check_file_roles({{"the input", o->file}, {"--profile", o->costs.profile}});
    ValidateOptions options;
    if (!o->memory_limit.empty()) {
      options.memory_limit = parse_size_flag(o->memory_limit, "--memory-limit");
      if (!has_memory_costs(o->costs)) {
        throw UsageError("--memory-limit needs memory costs: give --profile FILE or --memory A_F,A_W");
      }
    }
    const LoweredSchedule file = read_schedule_input(o->file);
    const Schedule& schedule = file.schedule;
    CostModel costs = build_cost_model(o->costs, schedule.stages, schedule.devices);
    const WorkEstimate need = timing_estimate(schedule, SimOptions{}, o->comm, o->file);
    check_memory(need.bytes, "validating " + o->file, need.large);
    const std::vector<Problem> problems = [&] {
      const Activity doing("validating " + need.large);
      return validate_lowered(file, costs, comm_run(o->comm, file, {}), options);
    }();
    emit("", o->json ? to_json_text(validation_to_json(schedule, problems)) : validation_text(schedule, problems));
    return problems.empty() ? kExitOk : kExitInvalid;
  };
}

}  // namespace pipeplan::cli
