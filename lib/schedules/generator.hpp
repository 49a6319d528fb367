#pragma once
// The schedule generators and their registry (DESIGN.md, "Schedule generators"). Each generator
// builds the per-device op order of one published schedule and names its source in its doc.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/limits.hpp"
#include "model/schedule.hpp"

namespace pipeplan {

/// What a generator is asked for: `devices` pipeline ranks (P), `microbatches` (M), `chunks`
/// stages per device (V), for the interleaved schedule the micro-batch group size (0: P), and
/// for the cost-aware generators the costs of the P*V stages and the memory limit.
struct GenerateRequest {
  int devices = 0;
  int microbatches = 0;
  /// The chunks to build; the generators check it. A caller whose user may leave it out asks
  /// Generator::chunks_for(0) for the generator's default rather than keeping this 1.
  int chunks = 1;
  int group = 0;
  const CostModel* costs = nullptr;  ///< needed by the cost-aware generators, ignored by the rest
  std::vector<Bytes> memory_limit;   ///< per device, static memory included; one value: every device
};

struct Generator {
  std::string_view name;
  std::string_view description;  ///< one line, with its source
  std::string_view constraints;  ///< what it needs of P, M and V
  Schedule (*generate)(const GenerateRequest&);  ///< throws Error when it cannot build
  int min_chunks = 1;      ///< the chunks per device it can build
  int max_chunks = 1;
  int default_chunks = 1;  ///< when the request leaves chunks at 0

  /// The chunks to build for a request of `chunks` (0: the default), kept within its range, so
  /// that one --chunks can serve a comparison of schedules with different needs.
  [[nodiscard]] int chunks_for(int chunks) const;
};

/// Every generator, in a fixed order.
[[nodiscard]] std::span<const Generator> generators();

/// The generator called `name`, or nullptr.
[[nodiscard]] const Generator* find_generator(std::string_view name);

/// Up to `count` generator names close to `name`, closest first (see closest_names).
[[nodiscard]] std::vector<std::string> closest_generator_names(std::string_view name,
                                                               std::size_t count);

}  // namespace pipeplan
