#pragma once
// The costs as a user writes them, in text: a profile path, or "F,B,W" milliseconds with a
// transfer ("MS", or "MS,MS,..." one per stage boundary) and activations ("A_F,A_W" sizes). The
// command line's --profile, --costs, --transfer and --memory, and the Python package's keyword
// arguments, read them through these functions alone, so both accept and refuse the same values
// with the same messages.
#include <string>
#include <vector>

#include "costs/cost_model.hpp"
#include "model/units.hpp"

namespace pipeplan {

struct CostFlags {
  std::string profile;   ///< a profile file's path; excludes the other three
  std::string costs;     ///< "F,B,W" in ms, every stage alike (default 1,1,1)
  std::string transfer;  ///< "MS" or one per stage boundary "MS,MS,..." (default 0)
  std::string memory;    ///< "A_F,A_W", e.g. "2GiB,512MiB" (default 0,0)
};

/// The costs as given, read once: the profile's entries (Error when it is unreadable), or one
/// entry per device from costs, transfer and memory (FlagError for a malformed value).
[[nodiscard]] CostModel given_costs(const CostFlags& flags, int devices);

/// `given` fitted to a schedule of `stages` stages (costs_for_stages); an Error names the profile.
/// A transfer list becomes one transfer per boundary; FlagError when it has not stages - 1 values.
[[nodiscard]] CostModel fit_costs(const CostModel& given, const CostFlags& flags, int stages, int devices);

/// given_costs, then fit_costs.
[[nodiscard]] CostModel build_cost_model(const CostFlags& flags, int stages, int devices);

/// True when the costs carry activation memory: a profile, or memory.
[[nodiscard]] bool has_memory_costs(const CostFlags& flags);

/// One line saying where the costs came from, e.g. "costs: F,B,W = 1,1,1 ms per stage, ...".
[[nodiscard]] std::string describe_costs(const CostFlags& flags);

/// A size such as "2GiB" (parse_size); FlagError naming `flag` otherwise.
[[nodiscard]] Bytes parse_size_flag(const std::string& text, const std::string& flag);

/// A memory limit "SIZE" or "SIZE,SIZE,..." for `devices` devices: none when `text` is empty, one
/// for every device, or one per device. FlagError naming --memory-limit otherwise.
[[nodiscard]] std::vector<Bytes> parse_memory_limits(const std::string& text, int devices);

}  // namespace pipeplan
