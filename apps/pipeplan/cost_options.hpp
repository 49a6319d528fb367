#pragma once
// The cost flags that simulate, validate, compare and generate share: --profile FILE, or
// --costs F,B,W with --transfer MS (or one per stage boundary, MS,MS,...) and --memory A_F,A_W.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "costs/cost_model.hpp"
#include "model/units.hpp"

namespace pipeplan::cli {

struct CostOptions {
  std::string profile;
  std::string costs;
  std::string transfer;
  std::string memory;
};

/// Registers the cost flags on `sub`.
void add_cost_options(CLI::App& sub, CostOptions& options);

/// The costs as given, read once: the profile's entries (Error when it is unreadable), or one
/// entry per device from --costs, --transfer and --memory (UsageError for a malformed flag).
[[nodiscard]] CostModel given_costs(const CostOptions& options, int devices);

/// `given` fitted to a schedule of `stages` stages (costs_for_stages); an Error names the profile.
/// A --transfer list becomes one transfer per boundary; UsageError when it has not stages - 1 values.
[[nodiscard]] CostModel fit_costs(const CostModel& given, const CostOptions& options, int stages, int devices);

/// given_costs, then fit_costs: the cost model for `stages` stages on `devices` devices: from the profile (Error when
/// it is unreadable or does not match), or uniform from --costs (default 1,1,1 ms), --transfer (default 0) and --memory
/// (default 0,0), which describe one device's share of the model. Either is split into chunks when the schedule has
/// more stages than devices (costs_for_stages). Throws UsageError for a malformed flag.
[[nodiscard]] CostModel build_cost_model(const CostOptions& options, int stages, int devices);

/// True when the costs carry activation memory: a profile, or --memory.
[[nodiscard]] bool has_memory_costs(const CostOptions& options);

/// One line saying where the costs came from, e.g. "costs: uniform F=1 B=1 W=1 ms, transfer 0 ms".
[[nodiscard]] std::string describe_costs(const CostOptions& options);

/// Parses --memory-limit's value; throws UsageError naming `flag`.
[[nodiscard]] Bytes parse_size_flag(const std::string& text, const std::string& flag);

}  // namespace pipeplan::cli
