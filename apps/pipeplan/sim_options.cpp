#include "sim_options.hpp"

#include "enum_flags.hpp"
#include "io/run_flags.hpp"

namespace pipeplan::cli {

void add_sim_options(CLI::App& sub, SimFlags& flags) {
  sub.add_option("--iterations", flags.iterations,
                 "Training steps back to back; with 2 or more the step time is the steady state's")
      ->type_name("K")
      ->check(CLI::Range(1, kMaxIterations));
  sub.add_option("--optimizer-mode", flags.optimizer_mode, enum_help(kOptimizerModes))
      ->type_name("MODE")
      ->transform(enum_choices_of(kOptimizerModes));
}

SimOptions sim_options(const SimFlags& flags) {
  return sim_options_of(flags.iterations, flags.optimizer_mode);
}

}  // namespace pipeplan::cli
