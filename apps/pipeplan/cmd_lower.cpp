// pipeplan lower: a schedule with the sends and receives each device posts, placed by a policy.
#include <memory>

#include "comm_options.hpp"
#include "command.hpp"
#include "cost_options.hpp"
#include "enum_flags.hpp"
#include "file_roles.hpp"
#include "flag_checks.hpp"
#include "io/memory_estimate.hpp"
#include "io/schedule_json.hpp"
#include "io/schedule_text.hpp"
#include "lower/lowering.hpp"
#include "memory_budget.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace pipeplan::cli {

namespace {

struct LowerOptions {
  std::string file;
  std::string policy = "timed";
  CostOptions costs;
  std::string output;
};

}  // namespace

Runner add_lower(CLI::App& sub) {
  auto o = std::make_shared<LowerOptions>();
  sub.add_option("FILE", o->file, "Schedule JSON")->required()->type_name("FILE")->check(file_name());
  sub.add_option("--policy", o->policy,
                 enum_list(kLowerPolicies) + " (timed: ordered by the overlapped run with the costs)")
      ->type_name("NAME")
      ->capture_default_str();
  add_cost_options(sub, o->costs);
  sub.add_option("-o,--output", o->output, "Write the lowered schedule here (default: stdout)")
      ->type_name("FILE")
      ->check(file_name());
  return [o, app = &sub] {
    check_file_roles({{"the input", o->file}, {"--profile", o->costs.profile}, {"-o", o->output, true}});
    const LowerPolicy policy = parse_policy_flag(o->policy);
    if (const std::string flag = first_given(*app, kCostFlags); !flag.empty() && policy != LowerPolicy::Timed) {
      throw UsageError(flag + ": --policy " + o->policy +
                       " places the posts without timing; the costs apply to --policy timed");
    }
    const Schedule schedule = read_schedule_input(o->file).schedule;
    const CostModel costs = build_cost_model(o->costs, schedule.stages, schedule.devices);
    // The lowered copy and its posts (a comm run's structures, timed once for --policy timed)
    // and the text written whole: an entry per op and per send and receive, two of those per op.
    WorkEstimate need = timing_estimate(schedule, SimOptions{}, CommFlags{"blocking", ""}, o->file);
    need.bytes += 3 * schedule_entry_bytes(schedule.stages, schedule.microbatches) * need.ops;
    check_memory(need.bytes, "lowering " + o->file, need.large);
    const LoweredSchedule lowered = [&] {
      const Activity doing("lowering " + need.large);
      return lower(schedule, policy, &costs);
    }();
    emit(o->output, lowered_json_text(lowered));
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
