// pipeplan generate: a schedule from a generator, as JSON.
#include <memory>

#include "command.hpp"
#include "cost_options.hpp"
#include "io/schedule_json.hpp"
#include "output.hpp"
#include "schedule_request.hpp"

namespace pipeplan::cli {

namespace {

struct GenerateOptions {
  std::string schedule;
  GenerateRequest request;
  CostOptions costs;
  std::string output;
};

}  // namespace

Runner add_generate(CLI::App& sub) {
  auto o = std::make_shared<GenerateOptions>();
  sub.add_option("--schedule", o->schedule, "Generator name (see 'pipeplan list')")->required()->type_name("NAME");
  add_request_options(sub, o->request);
  add_cost_options(sub, o->costs);
  sub.add_option("-o,--output", o->output, "Write the schedule here instead of stdout")->type_name("FILE");
  return [o] {
    const Generator& generator = generator_named(o->schedule);
    Schedule schedule = generate_for(generator, o->request);
    // The handcrafted generators need no costs; reading them still catches a bad flag or
    // profile now rather than when a cost-aware generator starts to use them.
    (void)build_cost_model(o->costs, schedule.stages, schedule.devices);
    emit(o->output, to_json_text(schedule_to_json(schedule)));
    return kExitOk;
  };
}

}  // namespace pipeplan::cli
