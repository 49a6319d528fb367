#include "costs/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "model/error.hpp"

namespace pipeplan {

namespace {

void check_ms(double value, const std::string& field) {
  if (!std::isfinite(value) || value < 0.0) {
    throw Error(field + ": expected a finite, non-negative number of milliseconds, got " + std::to_string(value));
  }
}

void check_bytes(Bytes value, const std::string& field) {
  if (value < 0) {
    throw Error(field + ": expected a non-negative number of bytes, got " + std::to_string(value));
  }
}

void check_transfer(const TransferCost& t, const std::string& at) {
  if (t.fixed_ms) {
    check_ms(*t.fixed_ms, at + "ms");
    return;
  }
  check_ms(t.latency_ms, at + "latency_ms");
  check_bytes(t.bytes, at + "bytes");
  if (!std::isfinite(t.bandwidth_gb_per_s) || t.bandwidth_gb_per_s <= 0.0) {
    throw Error(at + "bandwidth_gb_per_s: expected a positive number of GB/s, got " +
                std::to_string(t.bandwidth_gb_per_s));
  }
}

void check_boundary_count(const CostModel& costs, std::size_t stages) {
  if (costs.boundaries.empty() || costs.boundaries.size() + 1 == stages) return;
  throw Error("boundaries: expected one transfer per stage boundary (" + std::to_string(stages - 1) + " for " +
              std::to_string(stages) + " stages), got " + std::to_string(costs.boundaries.size()));
}

}  // namespace

double CostModel::transfer_ms(int s) const {
  if (boundaries.empty()) return transfer.ms();
  return boundaries[static_cast<std::size_t>(s)].ms();
}

double CostModel::max_transfer_ms() const {
  if (boundaries.empty()) return transfer.ms();
  double longest = 0.0;
  for (const TransferCost& t : boundaries) longest = std::max(longest, t.ms());
  return longest;
}

std::vector<SimTime> boundary_transfer_ns(const CostModel& costs) {
  check_boundary_count(costs, costs.stages.size());  // transfer_ms(s) reads boundaries[s]
  std::vector<SimTime> out;
  const int stages = static_cast<int>(costs.stages.size());
  out.reserve(stages > 1 ? static_cast<std::size_t>(stages - 1) : 0);
  for (int s = 0; s + 1 < stages; ++s) out.push_back(ms_to_ns(costs.transfer_ms(s)));
  return out;
}

Bytes fb_held_bytes(Bytes forward, Bytes forward_layer, Bytes backward, Bytes backward_layer) {
  if (forward_layer <= 0 || backward_layer <= 0) return forward;
  return std::min(forward, std::max(forward_layer, forward - backward + backward_layer));
}

double TransferCost::ms() const {
  if (fixed_ms) return *fixed_ms;
  if (bytes == 0) return latency_ms;
  // bytes / (GB/s * 1e9) seconds, times 1e3 for milliseconds.
  return latency_ms + static_cast<double>(bytes) / (bandwidth_gb_per_s * 1e6);
}

CostModel uniform_costs(int stages, int devices, const StageCost& stage, double transfer_ms) {
  CostModel costs;
  costs.stages.assign(static_cast<std::size_t>(stages), stage);
  costs.devices.assign(static_cast<std::size_t>(devices), DeviceCost{});
  costs.transfer.fixed_ms = transfer_ms;
  return costs;
}

CostModel costs_for_stages(const CostModel& costs, int stages, int devices) {
  const int given = static_cast<int>(costs.stages.size());
  if (given == stages) return costs;
  if (given != devices || devices == 0 || stages % devices != 0) {
    throw Error("the costs describe " + std::to_string(given) + " stages but the schedule has " +
                std::to_string(stages) + " on " + std::to_string(devices) +
                " devices: give one entry per stage, or one per device to split into chunks");
  }
  if (!costs.boundaries.empty()) {
    throw Error("the costs give one entry per device with per-boundary transfers, but the schedule has " +
                std::to_string(stages) + " stages: give one entry (and one boundary) per stage, since a " +
                "chunk's transfer crosses a link that depends on where its neighbour runs");
  }
  const int k = stages / given;
  CostModel split = costs;
  split.stages.clear();
  for (const StageCost& s : costs.stages) {
    auto bytes = [k](Bytes b) { return static_cast<Bytes>(std::llround(static_cast<double>(b) / k)); };
    // A workspace is one op's at a time (a layer's, the loss's): each chunk's op may hold it whole.
    StageCost chunk{s.f_ms / k,
                    s.b_ms / k,
                    s.w_ms / k,
                    bytes(s.activation_bytes),
                    bytes(s.w_activation_bytes),
                    s.f_and_b_ms ? std::optional<double>(*s.f_and_b_ms / k) : std::nullopt,
                    s.f_workspace_bytes,
                    s.b_workspace_bytes,
                    std::min(s.layer_activation_bytes, bytes(s.activation_bytes))};
    split.stages.insert(split.stages.end(), static_cast<std::size_t>(k), chunk);
  }
  return split;
}

void default_devices(CostModel& costs, int devices) {
  if (costs.devices.empty()) costs.devices.assign(static_cast<std::size_t>(devices), DeviceCost{});
}

void check_costs(const CostModel& costs) {
  for (std::size_t i = 0; i < costs.stages.size(); ++i) {
    const StageCost& s = costs.stages[i];
    std::string at = "stages[" + std::to_string(i) + "].";
    check_ms(s.f_ms, at + "f_ms");
    check_ms(s.b_ms, at + "b_ms");
    check_ms(s.w_ms, at + "w_ms");
    if (s.f_and_b_ms) check_ms(*s.f_and_b_ms, at + "f_and_b_ms");
    check_bytes(s.activation_bytes, at + "activation_bytes");
    check_bytes(s.w_activation_bytes, at + "w_activation_bytes");
    check_bytes(s.f_workspace_bytes, at + "f_workspace_bytes");
    check_bytes(s.b_workspace_bytes, at + "b_workspace_bytes");
    if (s.w_activation_bytes > s.activation_bytes) {
      throw Error(at + "w_activation_bytes: " + std::to_string(s.w_activation_bytes) + " exceeds activation_bytes " +
                  std::to_string(s.activation_bytes) + ": W can only keep part of what F allocated");
    }
    check_bytes(s.layer_activation_bytes, at + "layer_activation_bytes");
    if (s.layer_activation_bytes > s.activation_bytes) {
      throw Error(at + "layer_activation_bytes: " + std::to_string(s.layer_activation_bytes) +
                  " exceeds activation_bytes " + std::to_string(s.activation_bytes) +
                  ": one layer keeps part of what the stage's F allocated");
    }
  }
  for (std::size_t i = 0; i < costs.devices.size(); ++i) {
    std::string at = "devices[" + std::to_string(i) + "].";
    check_bytes(costs.devices[i].static_memory_bytes, at + "static_memory_bytes");
    check_ms(costs.devices[i].optimizer_ms, at + "optimizer_ms");
  }
  if (costs.boundaries.empty()) check_transfer(costs.transfer, "transfer.");
  check_boundary_count(costs, costs.stages.size());
  for (std::size_t i = 0; i < costs.boundaries.size(); ++i) {
    check_transfer(costs.boundaries[i], "boundaries[" + std::to_string(i) + "].");
  }
}

void check_dimensions(const CostModel& costs, int stages, int devices) {
  if (std::cmp_not_equal(costs.stages.size(), stages)) {
    throw Error("the costs describe " + std::to_string(costs.stages.size()) + " stages but the schedule has " +
                std::to_string(stages) + ": give a profile with one entry per stage");
  }
  if (std::cmp_not_equal(costs.devices.size(), devices)) {
    throw Error("the costs describe " + std::to_string(costs.devices.size()) + " devices but the schedule has " +
                std::to_string(devices) + ": give a profile with one entry per device");
  }
  check_boundary_count(costs, costs.stages.size());
}

}  // namespace pipeplan
