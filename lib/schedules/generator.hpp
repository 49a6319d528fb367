#pragma once
// The schedule generators and their registry (docs/schedules.md). Each generator
// builds the per-device op order of one published schedule and names its source in its doc.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/limits.hpp"
#include "model/schedule.hpp"
#include "sim/sim_result.hpp"

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
  /// The automatic schedules minimise the step time under this optimizer mode (see
  /// ScheduleSearch); the handcrafted ones ignore it, as their order does not depend on costs.
  OptimizerMode objective = OptimizerMode::Sync;
  int iterations =
      1;  ///< with more than one, the automatic schedules minimise the steady state's step (scoring at most 4)
  /// The automatic schedules' search, in simulated ops; 0: ScheduleSearch::kDefaultBudget. The
  /// planner searches many configurations with less and refines the rows it shows with the default.
  long long search_budget = 0;
};

/// Whether a generator plans under --memory-limit: not at all, with a default of its own, or only
/// with one given.
enum class MemoryLimitUse : unsigned char { None, Optional, Required };

/// "none", "optional", "required": how the registry's rows are listed to the page and to Python.
[[nodiscard]] std::string_view memory_limit_use_name(MemoryLimitUse use);

/// The fewest micro-batches a generator builds on P devices: per_device * P + plus. {0, 1} is
/// "1", {1, 0} "P", {2, -1} "2P-1".
struct MicrobatchMinimum {
  int per_device = 0;
  int plus = 1;

  [[nodiscard]] int on(int devices) const { return per_device * devices + plus; }
  /// The rule as messages write it: "1", "P", "2P-1".
  [[nodiscard]] std::string text() const;
};

/// Which search of the automatic schedules takes a handcrafted schedule among its candidates, so
/// that it can never return worse than that schedule: one chunk per device (zb, zb-1p and zb-2p
/// at V = 1), several chunks on the looped placement (the same at V > 1), or the V (zbv-auto).
enum class CandidateOf : unsigned char { None, SingleChunk, Looped, Vee };

/// One row of the registry: everything the library, the command line and the tests know about a
/// generator. Its own checks (check_request in builder.hpp) read its limits from here, so a limit
/// is written once; rows are written with designated initializers (.max_chunks = 64).
struct Generator {
  std::string_view name;
  std::string_view description;  ///< one line, with its source
  /// What it needs of P, M and V, as `pipeplan list` and the README show it; a test holds it to
  /// the fields below.
  std::string_view constraints;
  Schedule (*generate)(const GenerateRequest&) = nullptr;  ///< throws Error when it cannot build
  int min_chunks = 1;                                      ///< the chunks per device it can build
  int max_chunks = 1;
  int default_chunks = 1;  ///< when the request leaves chunks at 0
  MicrobatchMinimum min_microbatches;
  /// Without a --group, M must split into PyTorch's rounds (microbatches_per_round in builder.hpp).
  bool pytorch_rounds = false;
  MemoryLimitUse memory_limit = MemoryLimitUse::None;
  /// Plans with the costs (the automatic schedules, the search behind zb); the rest ignore them,
  /// and the objective (optimizer mode, iterations) applies to these alone.
  bool uses_costs = false;
  bool takes_group = false;  ///< builds micro-batch groups of GenerateRequest::group
  /// The automatic schedules' search this handcrafted schedule competes in, and its place there:
  /// the search takes candidates in increasing rank and, of equally good ones, keeps the first.
  CandidateOf candidate_of = CandidateOf::None;
  int candidate_rank = 0;

  /// True when `chunks` (0: not given) is one this generator builds.
  [[nodiscard]] bool takes_chunks(int chunks) const {
    return chunks == 0 || (chunks >= min_chunks && chunks <= max_chunks);
  }

  /// The chunks to build for a request of `chunks` (0: the default), kept within its range, so
  /// that one --chunks can serve a comparison of schedules with different needs.
  [[nodiscard]] int chunks_for(int chunks) const;
};

/// Every generator, in a fixed order.
[[nodiscard]] std::span<const Generator> generators();

/// The rows of the handcrafted schedules that compete in `search`, by candidate_rank.
[[nodiscard]] std::vector<const Generator*> candidates_of(CandidateOf search);

/// The names of the generators that plan with the costs, comma-separated, for messages.
[[nodiscard]] std::string automatic_generator_names();

/// The generator called `name`, whatever its case, or nullptr.
[[nodiscard]] const Generator* find_generator(std::string_view name);

/// Up to `count` generator names close to `name`, closest first (see closest_names).
[[nodiscard]] std::vector<std::string> closest_generator_names(std::string_view name, std::size_t count);

}  // namespace pipeplan
