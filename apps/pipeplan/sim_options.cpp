#include "sim_options.hpp"

namespace pipeplan::cli {

void add_sim_options(CLI::App& sub, SimFlags& flags) {
  sub.add_option("--iterations", flags.iterations,
                 "Training steps back to back; with 2 or more the step time is the steady state's")
      ->type_name("K")
      ->check(CLI::Range(1, 10000));
  sub.add_option("--optimizer-mode", flags.optimizer_mode,
                 "sync: an all-reduce before every device's step; post-validation: each steps on its own")
      ->type_name("MODE")
      ->transform(CLI::IsMember({"sync", "post-validation"}, CLI::ignore_case));
}

SimOptions sim_options(const SimFlags& flags) {
  return {flags.iterations,
          flags.optimizer_mode == "sync" ? OptimizerMode::Sync : OptimizerMode::PostValidation};
}

}  // namespace pipeplan::cli
