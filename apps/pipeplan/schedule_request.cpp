#include "schedule_request.hpp"

#include "command.hpp"
#include "model/limits.hpp"

namespace pipeplan::cli {

void add_request_options(CLI::App& sub, GenerateRequest& r) {
  sub.add_option("--stages", r.devices, "Pipeline degree P: devices, one stage each")
      ->type_name("P")
      ->required()
      ->check(CLI::Range(1, kMaxDevices));
  sub.add_option("--microbatches", r.microbatches, "Micro-batches per step M")
      ->type_name("M")
      ->required()
      ->check(CLI::Range(1, kMaxMicrobatches));
  sub.add_option("--chunks", r.chunks,
                 "Stages per device V, for the schedules that take several (default: each schedule's own)")
      ->type_name("V")
      ->check(CLI::Range(1, 64));
  sub.add_option("--group", r.group, "interleaved: micro-batches per group N (default P)")
      ->type_name("N")
      ->check(CLI::Range(1, kMaxMicrobatches));
}

Schedule generate_for(const Generator& generator, GenerateRequest request) {
  request.chunks = generator.chunks_for(request.chunks);
  return generator.generate(request);
}

const Generator& generator_named(const std::string& name) {
  if (const Generator* g = find_generator(name)) return *g;
  std::string message = "unknown schedule '" + name + "'";
  std::vector<std::string> close = closest_generator_names(name, 3);
  if (!close.empty()) {
    message += "; did you mean";
    for (std::size_t i = 0; i < close.size(); ++i) message += (i == 0 ? " '" : ", '") + close[i] + "'";
    message += "?";
  }
  throw UsageError(message + " ('pipeplan list' shows them all)");
}

}  // namespace pipeplan::cli
