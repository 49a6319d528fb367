#include "io/cost_flags.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include "io/profile_json.hpp"
#include "model/error.hpp"
#include "model/finite.hpp"
#include "model/size_string.hpp"
#include "model/units.hpp"

namespace pipeplan {

namespace {

constexpr const char* kDefaultCosts = "1,1,1";

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

double parse_ms(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  double value = text.empty() ? NAN : std::strtod(text.c_str(), &end);
  if (!finite_within(value, 0.0, HUGE_VAL) || end == nullptr || *end != '\0') {
    throw FlagError(flag + ": expected a non-negative number of milliseconds, got '" + text + "'");
  }
  // A number, but past the cap of one time (model/units.hpp): say the cap, not the form.
  if (value > kMaxMs) {
    throw FlagError(flag + ": '" + text + "' ms is above the 1e10 ms (115 days) one time may take");
  }
  return value;
}

// --transfer's values: one for every boundary, or one per stage boundary in stage order.
std::vector<double> parse_transfers(const std::string& text) {
  if (text.empty()) return {0.0};
  std::vector<double> values;
  for (const std::string& part : split(text, ',')) values.push_back(parse_ms(part, "--transfer"));
  return values;
}

}  // namespace

CostModel given_costs(const CostFlags& o, int devices) {
  if (!o.profile.empty()) {
    CostModel costs = read_profile_file(o.profile);
    default_devices(costs, devices);
    return costs;
  }
  std::string text = o.costs.empty() ? kDefaultCosts : o.costs;
  std::vector<std::string> parts = split(text, ',');
  if (parts.size() != 3) throw FlagError("--costs: expected F,B,W in milliseconds, got '" + text + "'");
  StageCost stage{parse_ms(parts[0], "--costs (F)"), parse_ms(parts[1], "--costs (B)"),
                  parse_ms(parts[2], "--costs (W)"), 0, 0};
  if (!o.memory.empty()) {
    std::vector<std::string> sizes = split(o.memory, ',');
    if (sizes.size() != 2) throw FlagError("--memory: expected A_F,A_W such as 2GiB,512MiB, got '" + o.memory + "'");
    stage.activation_bytes = parse_size_flag(sizes[0], "--memory (A_F)");
    stage.w_activation_bytes = parse_size_flag(sizes[1], "--memory (A_W)");
    if (stage.w_activation_bytes > stage.activation_bytes) {
      throw FlagError("--memory: A_W (" + sizes[1] + ") exceeds A_F (" + sizes[0] +
                      "): W keeps only part of what F allocated");
    }
  }
  // The flags give one device's share of the model; a schedule with chunks splits it. A list of
  // transfers is one per boundary of the schedule's stages, which fit_costs knows: until then every
  // boundary takes the longest, what a rule that reads one transfer time would use.
  const std::vector<double> transfers = parse_transfers(o.transfer);
  return uniform_costs(devices, devices, stage, *std::max_element(transfers.begin(), transfers.end()));
}

CostModel fit_costs(const CostModel& given, const CostFlags& o, int stages, int devices) {
  CostModel costs;
  try {
    costs = costs_for_stages(given, stages, devices);
    check_dimensions(costs, stages, devices);
  } catch (const Error& e) {
    throw Error(o.profile.empty() ? std::string(e.what()) : o.profile + ": " + e.what());
  }
  const std::vector<double> transfers = o.profile.empty() ? parse_transfers(o.transfer) : std::vector<double>{};
  if (transfers.size() > 1) {
    if (std::cmp_not_equal(transfers.size(), stages - 1)) {
      throw FlagError("--transfer: expected one value, or " + std::to_string(stages - 1) +
                      ", one per boundary between the schedule's " + std::to_string(stages) + " stages; got " +
                      std::to_string(transfers.size()) + ": '" + o.transfer + "'");
    }
    costs.boundaries.clear();
    for (double ms : transfers) costs.boundaries.push_back(TransferCost{ms, 0, 0, 0});
  }
  return costs;
}

CostModel build_cost_model(const CostFlags& o, int stages, int devices) {
  return fit_costs(given_costs(o, devices), o, stages, devices);
}

bool has_memory_costs(const CostFlags& o) {
  return !o.profile.empty() || !o.memory.empty();
}

std::string describe_costs(const CostFlags& o) {
  if (!o.profile.empty()) return "costs: profile " + o.profile;
  std::string costs = o.costs.empty() ? std::string(kDefaultCosts) + " (the default)" : o.costs;
  const bool per_boundary = o.transfer.find(',') != std::string::npos;
  return "costs: F,B,W = " + costs + " ms per stage, transfer " + (o.transfer.empty() ? "0" : o.transfer) +
         (per_boundary ? " ms per boundary" : " ms") + ", activations " + (o.memory.empty() ? "0,0" : o.memory);
}

Bytes parse_size_flag(const std::string& text, const std::string& flag) {
  auto bytes = parse_size(text);
  if (!bytes && parse_size_bytes(text)) {
    throw FlagError(flag + ": '" + text + "' is 8 EiB or more, past the largest size pipeplan counts");
  }
  if (!bytes) {
    throw FlagError(flag + ": expected a size such as 2GiB, 1.5GB or a number of bytes, got '" + text + "'");
  }
  return *bytes;
}

std::vector<Bytes> parse_memory_limits(const std::string& text, int devices) {
  std::vector<Bytes> limits;
  if (text.empty()) return limits;
  for (const std::string& part : split(text, ',')) limits.push_back(parse_size_flag(part, "--memory-limit"));
  if (limits.size() != 1 && std::cmp_not_equal(limits.size(), devices)) {
    throw FlagError("--memory-limit: expected one size, or one per device (" + std::to_string(devices) + "), got " +
                    std::to_string(limits.size()));
  }
  return limits;
}

}  // namespace pipeplan
