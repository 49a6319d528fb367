#include "schedules/builder.hpp"

#include <algorithm>
#include <string>

#include "model/error.hpp"
#include "model/placement.hpp"

namespace pipeplan {

void check_request(std::string_view schedule, const GenerateRequest& r) {
  std::string name(schedule);
  const Generator* row = find_generator(schedule);
  if (row == nullptr) throw Error("internal error: no generator row is called " + name);
  const Generator& rules = *row;
  if (r.devices < 1 || r.devices > kMaxDevices) {
    throw Error(name + ": needs 1 to " + std::to_string(kMaxDevices) + " stages, got " + std::to_string(r.devices));
  }
  if (r.microbatches < 1 || r.microbatches > kMaxMicrobatches) {
    throw Error(name + ": needs 1 to " + std::to_string(kMaxMicrobatches) + " micro-batches, got " +
                std::to_string(r.microbatches));
  }
  if (r.chunks < rules.min_chunks || r.chunks > rules.max_chunks) {
    std::string range = rules.min_chunks == rules.max_chunks
                            ? std::to_string(rules.min_chunks)
                            : std::to_string(rules.min_chunks) + " to " + std::to_string(rules.max_chunks);
    throw Error(name + ": runs " + range + " chunk" + (rules.max_chunks == 1 ? "" : "s") + " per device, got " +
                std::to_string(r.chunks));
  }
  long long ops = 3LL * r.devices * r.chunks * r.microbatches;
  if (ops > kMaxOps) {
    throw Error(name + ": " + std::to_string(r.devices) + " stages x " + std::to_string(r.chunks) + " chunks x " +
                std::to_string(r.microbatches) + " micro-batches is up to " + std::to_string(ops) +
                " ops, more than the limit of " + std::to_string(kMaxOps) +
                " that keeps a schedule within a few GiB of memory");
  }
  const int least = rules.min_microbatches.on(r.devices);
  if (r.microbatches < least) {
    throw Error(name + ": needs at least " + rules.min_microbatches.text() + " = " + std::to_string(least) +
                " micro-batches for " + std::to_string(r.devices) + " stages, got " + std::to_string(r.microbatches));
  }
  if (rules.pytorch_rounds && (r.group == 0 || !rules.takes_group)) (void)microbatches_per_round(schedule, r);
}

namespace {

// PyTorch's round count: floor(M/P) rounds, at least one, which must split M evenly.
int rounds_of(int devices, int microbatches) {
  return std::max(1, microbatches / devices);
}

bool splits_into_rounds(int devices, int microbatches) {
  return microbatches % rounds_of(devices, microbatches) == 0;
}

}  // namespace

int microbatches_per_round(std::string_view schedule, const GenerateRequest& r) {
  const int p = r.devices;
  const int m = r.microbatches;
  if (!splits_into_rounds(p, m)) {
    // The nearest counts PyTorch takes: every M < P and every multiple of P fit, so both
    // searches stop within P steps.
    int below = m - 1;
    while (!splits_into_rounds(p, below)) --below;
    int above = m + 1;
    while (!splits_into_rounds(p, above)) ++above;
    throw Error(std::string(schedule) + ": M = " + std::to_string(m) + " micro-batches do not split into " +
                std::to_string(rounds_of(p, m)) + " equal rounds for P = " + std::to_string(p) +
                ", V = " + std::to_string(r.chunks) +
                ": PyTorch's rule needs M < P or M a multiple of floor(M/P); the nearest "
                "that fit are M = " +
                std::to_string(below) + " and M = " + std::to_string(above));
  }
  return m / rounds_of(p, m);
}

Schedule empty_schedule(std::string_view name, const GenerateRequest& r, std::vector<int> placement) {
  Schedule s;
  s.name = std::string(name);
  s.devices = r.devices;
  s.stages = static_cast<int>(placement.size());
  s.microbatches = r.microbatches;
  s.placement = std::move(placement);
  s.order.resize(static_cast<std::size_t>(r.devices));
  return s;
}

Schedule single_chunk_schedule(std::string_view name, const GenerateRequest& r) {
  return empty_schedule(name, r, loop_placement(r.devices, 1));
}

}  // namespace pipeplan
