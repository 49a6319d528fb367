#pragma once
// The schedule generators and their registry (DESIGN.md, "Schedule generators"). Each generator
// builds the per-device op order of one published schedule and names its source in its doc.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/limits.hpp"
#include "model/schedule.hpp"

namespace pipeplan {

/// What a generator is asked for: `devices` pipeline ranks (P), `microbatches` (M), and
/// `chunks` stages per device (V; the schedules here use 1).
struct GenerateRequest {
  int devices = 0;
  int microbatches = 0;
  int chunks = 1;
};

struct Generator {
  std::string_view name;
  std::string_view description;  ///< one line, with its source
  std::string_view constraints;  ///< what it needs of P, M and V
  Schedule (*generate)(const GenerateRequest&);  ///< throws Error when it cannot build
};

/// Every generator, in a fixed order.
[[nodiscard]] std::span<const Generator> generators();

/// The generator called `name`, or nullptr.
[[nodiscard]] const Generator* find_generator(std::string_view name);

/// Up to `count` generator names close to `name`, closest first (see closest_names).
[[nodiscard]] std::vector<std::string> closest_generator_names(std::string_view name,
                                                               std::size_t count);

}  // namespace pipeplan
