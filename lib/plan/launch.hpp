#pragma once
// From a planned row to a launch (docs/launch.md): the arguments Megatron-LM takes, or the job
// config torchtitan reads, that run the row, each name checked against the framework's source at
// a pinned commit (tests/data/launch/). Where the framework cannot run the row as planned (a
// schedule it does not have, a sharding or recompute it does not offer), the launch says so and
// carries the closest run it has, simulated like the row.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "estimate/layout.hpp"
#include "model/enum_table.hpp"
#include "plan/plan_request.hpp"

namespace pipeplan {

enum class Framework : unsigned char { Megatron, Torchtitan };

inline constexpr EnumTable<Framework, 2> kFrameworks = {{
    {"megatron", Framework::Megatron, "Megatron-LM's training arguments (pretrain_gpt.py)"},
    {"torchtitan", Framework::Torchtitan, "a torchtitan job config, TOML for --job.config_file"},
}};

/// The sources every emitted name was checked against (tests/data/launch/*.txt say the same).
inline constexpr std::string_view kMegatronCommit = "d98e8a64ddf34856e74b24714e3bedb2f5a39553";
inline constexpr std::string_view kTorchtitanCommit = "73a0e6979dd10b6b1904098eb3c8f62c18ab87ce";  // v0.2.2
/// PyTorch's pipelining, whose get_schedule_class names torchtitan's schedules.
inline constexpr std::string_view kPytorchCommit = "00722e648b740f91d0e71494baa17891749fd291";

/// One argument or key. Megatron-LM: a flag ("--tensor-model-parallel-size") and its value
/// ("4"), empty for a switch ("--sequence-parallel"). torchtitan: a dotted key path
/// ("parallelism.tensor_parallel_degree") whose last part is the key and the rest its table, and
/// the value written in TOML ("4", "\"1F1B\"", "[\"quantize.linear.float8\"]").
struct LaunchSetting {
  std::string name;
  std::string value;
  /// The value is several space-separated words, each its own argument (an argparse list such
  /// as Megatron-LM's --cuda-graph-modules), not one word with spaces.
  bool words = false;
};

/// The launch of one row.
struct LaunchPlan {
  Framework framework = Framework::Megatron;
  std::vector<LaunchSetting> settings;  ///< in the order to write them
  /// What the framework runs differently from the row, each in one sentence naming what it runs
  /// instead (the settings are that run's).
  std::vector<std::string> gaps;
  /// Facts a user needs beside the settings (what the settings leave to them, what runs alike).
  std::vector<std::string> notes;
  /// The run the settings describe, simulated as the planner simulates its rows, when a gap
  /// changes what is simulated (schedule, rank order, recompute, sharding, FP8 recipe).
  std::optional<PlanRow> closest;
  /// Why `closest` is absent although a gap changed the run (its generator refused it).
  std::string closest_refusal;
};

/// Where the launch finds files the planner writes.
struct LaunchFiles {
  /// The row's schedule as PyTorch's CSV (`plan --emit-schedule DIR` writes DIR/schedule.csv);
  /// empty when none is written, and the launch names the file to write.
  std::string schedule_csv;
};

/// The launch of `row`, one of `request`'s rows, on `framework`. Throws Error for a row whose
/// schedule is no generator's.
[[nodiscard]] LaunchPlan launch_plan(Framework framework, const PlanRequest& request, const PlanRow& row,
                                     const LaunchFiles& files = {});

// The frameworks' halves, each with its tables (launch_megatron.cpp, launch_torchtitan.cpp).
// torchtitan's rebuilds the row's schedule (as --emit-schedule does) to see where pipeplan's
// own orders put their stages.
[[nodiscard]] LaunchPlan megatron_launch(const PlanRequest& request, const PlanRow& row);

/// Whether Megatron-LM runs the pipeplan schedule as it is (1F1B, interleaved 1F1B).
[[nodiscard]] bool megatron_runs(std::string_view schedule);
[[nodiscard]] LaunchPlan torchtitan_launch(const PlanRequest& request, const PlanRow& row, const LaunchFiles& files);

/// How the framework's 1F1B posts its sends and receives, where the plan said otherwise: both
/// Megatron-Core's (p2p_communication.py, _communicate) and PyTorch's Schedule1F1B
/// (torch/distributed/pipelining/schedules.py) post each gap's sends and receives as one batch
/// and wait for it before the next op, which makes the compute stream wait: --comm blocking
/// --policy batched. For `as_run` on several stages under 1F1B, sets run_request's and adds the gap
/// in `framework`'s words ("Megatron-LM's"); nothing for other rows.
void one_f_one_b_comm(std::string_view framework, const PlanRow& as_run, PlanRequest& run_request, LaunchPlan& launch);

/// Whether the closest run differs from the plan's in its request (training settings, transfers,
/// the model's multi-token prediction layers).
[[nodiscard]] bool run_differs(const PlanRequest& request, const PlanRequest& run_request);

/// `as_run`, a row changed to what a framework runs, simulated as the planner simulates rows;
/// sets `launch.closest`, or `launch.closest_refusal` when the generator refuses it.
void simulate_closest(const PlanRequest& request, const PlanRow& as_run, LaunchPlan& launch);

/// A Megatron-LM layout string ("Et*2|t*2|t*2|t*3L") with each run of equal stages written
/// once in Megatron's repetition ("Et*2|(t*2|)*2t*3L"), which its parser unrolls to the same stages.
[[nodiscard]] std::string repeated_layout(const std::string& megatron);

/// Whether `layout` is the even split of its stages (Megatron-LM's default: every stage the
/// same layers, E on the first and H on the last), with `padded` the split that counts E and H
/// as a layer each (--account-for-embedding-in-pipeline-split and -loss-).
[[nodiscard]] bool is_even_split(const Layout& layout, int layers, bool padded);

}  // namespace pipeplan
