#include "plan/plan_bounds.hpp"

#include <algorithm>
#include <limits>

#include "model/schedule.hpp"
#include "sim/lower_bound.hpp"

namespace pipeplan {

std::vector<Bytes> memory_lower_bound(const CostModel& costs, const std::vector<int>& placement, int devices) {
  std::vector<Bytes> out;
  for (const DeviceCost& d : costs.devices) out.push_back(d.static_memory_bytes);
  out.resize(static_cast<std::size_t>(devices), 0);
  for (std::size_t s = 0; s < placement.size(); ++s) {
    out[static_cast<std::size_t>(placement[s])] += costs.stages[s].activation_bytes;
  }
  return out;
}

SimTime step_bound(const CostModel& costs, const std::vector<int>& placement, int devices, int microbatches,
                   OptimizerMode mode) {
  Schedule shape;  // the bound reads only the shape and placement, never the order
  shape.devices = devices;
  shape.stages = static_cast<int>(placement.size());
  shape.microbatches = microbatches;
  shape.placement = placement;
  return step_lower_bound(shape, costs, mode);
}

TopSteps::TopSteps(const TopSteps& other) : keep_(other.keep_) {
  const std::lock_guard lock(other.mutex_);
  steps_ = other.steps_;
}

void TopSteps::merge(const TopSteps& other) {
  std::vector<std::pair<SimTime, std::string>> steps;
  {
    const std::lock_guard lock(other.mutex_);
    steps = other.steps_;
  }
  for (const auto& [step, group] : steps) add(step, group);
}

SimTime TopSteps::bar() const {
  const std::lock_guard lock(mutex_);
  if (keep_ == 0 || steps_.size() < keep_) return std::numeric_limits<SimTime>::max();
  return steps_.back().first;
}

void TopSteps::add(SimTime step, const std::string& group) {
  if (keep_ == 0) return;
  const std::lock_guard lock(mutex_);
  const auto same = std::find_if(steps_.begin(), steps_.end(), [&](const auto& kept) {
    return kept.first == step || (!group.empty() && kept.second == group);
  });
  if (same != steps_.end()) {
    if (same->first <= step) return;
    steps_.erase(same);  // the group's better step takes its place
  }
  const auto at =
      std::lower_bound(steps_.begin(), steps_.end(), step, [](const auto& kept, SimTime s) { return kept.first < s; });
  steps_.insert(at, {step, group});
  if (steps_.size() > keep_) steps_.pop_back();
}

}  // namespace pipeplan
