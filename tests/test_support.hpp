#pragma once
// Small helpers the unit tests share.
#include <string>

#include "costs/cost_model.hpp"
#include "model/schedule.hpp"
#include "schedules/generator.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan::test {

/// The named generator's schedule for P devices and M micro-batches, with its default chunks.
[[nodiscard]] Schedule generated(const std::string& name, int devices, int microbatches);

/// Every stage with the given F, B, W milliseconds and activation bytes; no transfer time.
[[nodiscard]] CostModel uniform(const Schedule& s, double f, double b, double w, Bytes a_f = 0, Bytes a_w = 0);

/// The message of the Error that `action` throws, or "" when it throws none.
template <class Action>
std::string error_of(Action&& action) {
  try {
    action();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace pipeplan::test
