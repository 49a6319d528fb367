#include "sim/sim_result.hpp"

#include <algorithm>

namespace pipeplan {

namespace {

double idle_fraction(const std::vector<DeviceTimeline>& devices, std::size_t iteration, SimTime window) {
  if (window <= 0 || devices.empty()) return 0.0;
  SimTime idle = 0;
  for (const DeviceTimeline& d : devices) idle += window - d.iterations[iteration].busy;
  return static_cast<double>(idle) / (static_cast<double>(devices.size()) * static_cast<double>(window));
}

SimTime iteration_end(const std::vector<DeviceTimeline>& devices, std::size_t iteration) {
  SimTime end = 0;
  for (const DeviceTimeline& d : devices) end = std::max(end, d.iterations[iteration].optimizer_end);
  return end;
}

}  // namespace

std::string_view optimizer_mode_name(OptimizerMode mode) {
  return mode == OptimizerMode::Sync ? "sync" : "post-validation";
}

double SimResult::bubble_rate() const { return idle_fraction(devices, 0, makespan); }

SimTime SimResult::step_time() const {
  if (devices.empty()) return 0;
  const std::size_t k = devices.front().iterations.size();
  if (k <= 1) return iteration_end(devices, 0);
  SimTime slowest = 0;
  for (const DeviceTimeline& d : devices) {
    slowest = std::max(slowest, d.iterations.back().optimizer_end - d.iterations.front().optimizer_end);
  }
  const SimTime steps = static_cast<SimTime>(k - 1);
  return (slowest + steps - 1) / steps;
}

double SimResult::span_bubble_rate() const {
  if (devices.empty()) return 0.0;
  const std::size_t last = devices.front().iterations.size() - 1;
  SimTime longest = 0;
  for (const DeviceTimeline& d : devices) longest = std::max(longest, d.iterations[last].span());
  return idle_fraction(devices, last, longest);
}

}  // namespace pipeplan
