#pragma once
// What `plan` is asked beside the model (io/model_flags.hpp): the GPUs, the memory, the schedules
// and layout to try, the search's bounds, and a calibrated profile; the command line's flags and
// the Python package's pipeplan.plan keywords become one PlanRequest here.
#include <string>
#include <vector>

#include "io/model_flags.hpp"
#include "io/run_flags.hpp"
#include "plan/plan_request.hpp"

namespace pipeplan {

struct PlanFlags {
  int gpus = 0;
  std::string memory_limit;            ///< "" for the card's memory, unless memory_limit_given
  bool memory_limit_given = false;     ///< the flag was given: its value is the limit, "" or 0 refused
  std::string memory_reserve;          ///< "" for kRuntimeMemoryReserve
  std::vector<std::string> schedules;  ///< empty: default_plan_schedules(model)
  std::string layout;
  int top = 5;
  int pp = 0;
  int chunks = 0;
  int max_chunks = 4;
  int microbatches = 0;
  int threads = 0;
  std::string calibration;  ///< a calibrated profile's path, or ""
  std::string optimizer_mode = "sync";
  int iterations = 0;  ///< 0: 1 under sync, 3 under post-validation (whose gain is in the steady state)
  CommFlags comm;      ///< --comm and --policy: how each row's transfers run (PlanRequest::comm)
};

/// The planner's request for `in` (read_model_input) and `searched` (searched_settings), which a
/// calibrated profile updates (its measured tp and micro-batch). FlagError for flags that
/// contradict each other or a malformed value; Error for a profile that does not fit the model.
[[nodiscard]] PlanRequest plan_request_for(ModelInput& in, SearchedSettings& searched, const ModelFlags& model,
                                           const PlanFlags& flags);

}  // namespace pipeplan
