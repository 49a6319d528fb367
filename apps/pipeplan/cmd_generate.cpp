// pipeplan generate: a schedule from a generator, as JSON.
#include <memory>

#include "command.hpp"
#include "cost_options.hpp"
#include "file_roles.hpp"
#include "io/schedule_text.hpp"
#include "memory_budget.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "schedule_request.hpp"
#include "sim_options.hpp"

namespace pipeplan::cli {

namespace {

struct GenerateOptions {
  std::string schedule;
  RequestFlags request;
  CostOptions costs;
  SimFlags objective;
  std::string output;
};

}  // namespace

Runner add_generate(CLI::App& sub) {
  auto o = std::make_shared<GenerateOptions>();
  sub.add_option("--schedule", o->schedule, "Generator name (see 'pipeplan list')")->required()->type_name("NAME");
  add_request_options(sub, o->request);
  add_cost_options(sub, o->costs);
  add_sim_options(sub, o->objective);
  sub.get_option("--optimizer-mode")
      ->description(
          "Automatic schedules: minimise the step under this mode (default sync; zero bubble needs post-validation)");
  sub.get_option("--iterations")
      ->description("Automatic schedules: minimise the steady state's step over K back-to-back steps (default 1)");
  sub.add_option("-o,--output", o->output, "Write the schedule here instead of stdout")
      ->type_name("FILE")
      ->check(file_name());
  return [o, app = &sub] {
    check_file_roles({{"--profile", o->costs.profile}, {"-o", o->output, true}});
    const Generator& generator = generator_named(o->schedule);
    const Generator* chosen[] = {&generator};
    check_flags_apply(*app, chosen, o->request, true);
    const SimOptions objective = sim_options(o->objective);
    const WorkEstimate need = generation_estimate(generator, o->request, objective, true);
    check_memory(need.bytes, "generate --schedule " + std::string(generator.name), need.large);
    Generated g = [&] {
      const Activity doing("generating " + std::string(generator.name) + ", " + need.large);
      return generate_for(generator, o->request, given_costs(o->costs, o->request.request.devices), o->costs,
                          objective);
    }();
    const Activity writing("writing " + (o->output.empty() ? std::string("standard output") : o->output));
    emit(o->output, schedule_json_text(g.schedule));
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
