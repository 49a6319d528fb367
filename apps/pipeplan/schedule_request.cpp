#include "schedule_request.hpp"

#include <array>

#include "flag_checks.hpp"
#include "model/limits.hpp"

namespace pipeplan::cli {

void check_flags_apply(const CLI::App& sub, std::span<const Generator* const> chosen, const RequestFlags& flags,
                       bool generating) {
  GivenFlags given;
  given.chunks = sub.count("--chunks") > 0;
  given.group = sub.count("--group") > 0;
  given.cost_flag = first_given(sub, kCostFlags);
  if (generating) {
    const std::array<const char*, 2> objective = {"--optimizer-mode", "--iterations"};
    given.objective_flag = first_given(sub, objective);
  }
  pipeplan::check_flags_apply(chosen, flags, given, generating);
}

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
  return parse_memory_limits(flags.memory_limit, flags.request.devices);
}

}  // namespace pipeplan::cli
