#include "schedule_request.hpp"

#include "command.hpp"
#include <utility>

#include "model/limits.hpp"

namespace pipeplan::cli {

namespace {

std::vector<Bytes> parse_limits(const std::string& text, int devices) {  // see memory_limits
  std::vector<Bytes> limits;
  if (text.empty()) return limits;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(',', start);
    limits.push_back(parse_size_flag(text.substr(start, end - start), "--memory-limit"));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (limits.size() != 1 && std::cmp_not_equal(limits.size(), devices)) {
    throw UsageError("--memory-limit: expected one size, or one per device (" + std::to_string(devices) +
                     "), got " + std::to_string(limits.size()));
  }
  return limits;
}

}  // namespace

void add_request_options(CLI::App& sub, RequestFlags& flags) {
  GenerateRequest& r = flags.request;
  sub.add_option("--stages", r.devices, "Pipeline degree P: devices")
      ->type_name("P")
      ->required()
      ->check(CLI::Range(1, kMaxDevices));
  sub.add_option("--microbatches", r.microbatches, "Micro-batches per step M")
      ->type_name("M")
      ->required()
      ->check(CLI::Range(1, kMaxMicrobatches));
  sub.add_option("--chunks", flags.chunks,
                 "Stages per device V, for the schedules that take several (default: each schedule's own)")
      ->type_name("V")
      ->check(CLI::Range(1, 64));
  sub.add_option("--group", r.group, "interleaved: micro-batches per group N (default P)")
      ->type_name("N")
      ->check(CLI::Range(1, kMaxMicrobatches));
  sub.add_option("--memory-limit", flags.memory_limit,
                 "zb, zbv-auto: per-device memory limit, static memory included, e.g. 24GiB or one size per device")
      ->type_name("SIZE");
}

std::vector<Bytes> memory_limits(const RequestFlags& flags) {
  return parse_limits(flags.memory_limit, flags.request.devices);
}

Generated generate_for(const Generator& generator, const RequestFlags& flags, const CostModel& given,
                       const CostOptions& cost_options) {
  GenerateRequest request = flags.request;
  request.chunks = generator.chunks_for(flags.chunks);
  request.memory_limit = parse_limits(flags.memory_limit, request.devices);
  CostModel costs = fit_costs(given, cost_options, request.devices * request.chunks, request.devices);
  request.costs = &costs;
  Schedule schedule = generator.generate(request);
  return {std::move(schedule), std::move(costs)};
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
