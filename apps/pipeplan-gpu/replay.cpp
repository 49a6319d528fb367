#include "replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "calibrate/message_size.hpp"
#include "calibrate/replay_comparison.hpp"
#include "calibrate/replay_plan.hpp"
#include "gpu_info.hpp"
#include "io/atomic_file.hpp"
#include "io/calibrated_profile_json.hpp"
#include "io/chrome_trace.hpp"
#include "io/profile_json.hpp"
#include "io/result_json.hpp"
#include "io/schedule_json.hpp"
#include "model/error.hpp"
#include "model/structure.hpp"
#include "replay_ranks.hpp"

namespace pipeplan::gpu {

namespace {

std::string comparison_text(const Schedule& schedule, const ReplayPlan& plan, const ReplayComparison& c,
                            std::size_t runs, Bytes bytes) {
  std::string text = fmt::format("{} on {} GPUs, {} timed runs (median shown), {} bytes a message\n", schedule.name,
                                 schedule.devices, runs, bytes);
  text += fmt::format("prediction: the {} lowering in the {} mode (NCCL on each rank's compute stream)\n",
                      plan.lowered.policy, comm_mode_name(plan.mode));
  text += fmt::format("makespan: predicted {:.3f} ms, measured {:.3f} ms, error {:+.1f}%\n", c.predicted_ms,
                      c.measured_ms, c.error_percent);
  text += "device   predicted bubble   measured bubble\n";
  for (std::size_t d = 0; d < c.predicted_bubble.size(); ++d) {
    text +=
        fmt::format("{:>6}   {:>15.1f}%   {:>14.1f}%\n", d, 100 * c.predicted_bubble[d], 100 * c.measured_bubble[d]);
  }
  if (!c.first_parted) {
    return text +
           fmt::format("no op starts more than {:.0f}% of the makespan away from its prediction\n", 100 * c.threshold);
  }
  const PartedOp& p = *c.first_parted;
  return text + fmt::format(
                    "first op to part by more than {:.0f}% of the makespan: device {} {} (#{}), predicted start "
                    "{:.3f} ms, measured {:.3f} ms\n",
                    100 * c.threshold, p.device, describe(p.op), p.index, ns_to_ms(p.predicted_start),
                    ns_to_ms(p.measured_start));
}

}  // namespace

int replay(const ReplayRequest& q) {
  // Every input is read and checked before the GPUs are looked at.
  const Schedule schedule = read_schedule_file(q.schedule);
  const Json profile_doc = parse_json(read_text_file(q.profile), q.profile);
  CostModel costs = profile_from_json(profile_doc, q.profile);
  const CalibratedProfile cal = calibrated_profile_from_json(profile_doc, q.profile);
  std::vector<Problem> problems = find_structure_problems(schedule);
  if (!allows_timing(problems)) throw Error(q.schedule + ": the schedule cannot be run: " + problems.front().message);
  if (cal.layout.size() != static_cast<std::size_t>(schedule.stages)) {
    throw Error(fmt::format("{}: the calibrated layout has {} stages, the schedule {}; calibrate with --stages {}",
                            q.profile, cal.layout.size(), schedule.stages, schedule.stages));
  }
  default_devices(costs, schedule.devices);
  costs = costs_for_stages(costs, schedule.stages, schedule.devices);
  const ReplayPlan plan = plan_replay(schedule, costs);
  const Bytes bytes = replay_message_bytes(costs, cal);
  const int available = device_count();
  if (available < schedule.devices) {
    throw Error(fmt::format("{}: needs {} GPUs, this machine has {}", q.schedule, schedule.devices, available));
  }

  ReplayRanks ranks(plan.program, cal, static_cast<std::size_t>(bytes));
  for (int i = 0; i < q.warmup; ++i) ranks.step(q.watchdog_s);
  std::vector<SimResult> runs;
  for (int i = 0; i < q.iterations; ++i) {
    ranks.step(q.watchdog_s);
    runs.push_back(measured_result(plan.program, ranks.times()));
  }
  std::sort(runs.begin(), runs.end(), [](const SimResult& a, const SimResult& b) { return a.makespan < b.makespan; });
  const SimResult& median = runs[runs.size() / 2];
  const ReplayComparison c = compare_replay(plan.predicted, median, q.threshold);
  if (!q.output.empty()) {
    Json doc = result_to_json(schedule, median);
    doc["replay"] = {{"predicted_makespan_ms", c.predicted_ms},
                     {"measured_makespan_ms", c.measured_ms},
                     {"prediction", {{"lowering", plan.lowered.policy}, {"comm_mode", comm_mode_name(plan.mode)}}},
                     {"message_bytes", bytes},
                     {"runs", runs.size()},
                     {"warmup", q.warmup},
                     {"profile", q.profile}};
    write_file_atomically(q.output, to_json_text(doc));
  }
  if (!q.trace.empty()) write_file_atomically(q.trace, to_json_text(chrome_trace(schedule, median)));
  std::cout << comparison_text(schedule, plan, c, runs.size(), bytes);
  return 0;
}

}  // namespace pipeplan::gpu
