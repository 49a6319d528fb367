#include "sim_options.hpp"

#include "enum_flags.hpp"

namespace pipeplan::cli {

void add_sim_options(CLI::App& sub, SimFlags& flags) {
  sub.add_option("--iterations", flags.iterations,
                 "Training steps back to back; with 2 or more the step time is the steady state's")
      ->type_name("K")
      ->check(CLI::Range(1, 10000));
  sub.add_option("--optimizer-mode", flags.optimizer_mode, enum_help(kOptimizerModes))
      ->type_name("MODE")
      ->transform(enum_choices_of(kOptimizerModes));
}

SimOptions sim_options(const SimFlags& flags) {
  // The flag's choices are the table's names, so the table parses whatever it kept.
  return {flags.iterations, *parse_optimizer_mode(flags.optimizer_mode)};
}

std::string run_limit_text(const RunLimitError& error) {
  if (error.limit == RunLimit::Iterations) return std::string("--") + error.what();
  if (error.limit == RunLimit::Memory) {
    return std::string("the memory (--memory or --profile): ") + error.what() + "; give smaller sizes";
  }
  return std::string("the costs (--costs, --transfer or --profile) with --iterations: ") + error.what() +
         "; give smaller times or fewer iterations";
}

}  // namespace pipeplan::cli
