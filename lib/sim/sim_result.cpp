#include "sim/sim_result.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <tuple>

namespace pipeplan {

namespace {

double idle_fraction(const std::vector<DeviceTimeline>& devices, std::size_t iteration, SimTime window) {
  if (window <= 0 || devices.empty()) return 0.0;
  // In double: devices x window may pass SimTime even where each time fits (run_limits.hpp).
  double idle = 0;
  for (const DeviceTimeline& d : devices) idle += static_cast<double>(window - d.iterations[iteration].busy);
  return idle / (static_cast<double>(devices.size()) * static_cast<double>(window));
}

SimTime iteration_end(const std::vector<DeviceTimeline>& devices, std::size_t iteration) {
  SimTime end = 0;
  for (const DeviceTimeline& d : devices) end = std::max(end, d.iterations[iteration].optimizer_end);
  return end;
}

}  // namespace

std::vector<const OpTiming*> SimResult::ops_by_start() const {
  // Each device's ops are in start order: merge them, the device breaking ties.
  using Head = std::tuple<SimTime, int, std::size_t>;  // start, device, index in its list
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  std::size_t total = 0;
  for (std::size_t d = 0; d < devices.size(); ++d) {
    total += devices[d].ops.size();
    if (!devices[d].ops.empty()) heads.emplace(devices[d].ops.front().start, static_cast<int>(d), 0);
  }
  std::vector<const OpTiming*> order;
  order.reserve(total);
  while (!heads.empty()) {
    auto [start, d, i] = heads.top();
    heads.pop();
    const auto& list = devices[static_cast<std::size_t>(d)].ops;
    order.push_back(&list[i]);
    if (i + 1 < list.size()) heads.emplace(list[i + 1].start, d, i + 1);
  }
  return order;
}

double SimResult::bubble_rate() const {
  return idle_fraction(devices, 0, makespan);
}

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
