#pragma once
// How transfers are timed (docs/model.md, "Communication"), with the table of its names that
// the CLI's --comm choices and help come from.
#include <optional>
#include <string_view>

#include "model/enum_table.hpp"

namespace pipeplan {

enum class CommMode : unsigned char {
  Overlap,     ///< transfers run beside compute and delay only their consumer (simulate())
  Blocking,    ///< sends and receives on the compute stream of both ends
  Rendezvous,  ///< sends and receives on a communication stream per device
};

inline constexpr EnumTable<CommMode, 3> kCommModes = {{
    {"overlap", CommMode::Overlap, "transfers beside compute"},
    {"blocking", CommMode::Blocking, "on both ends' compute stream"},
    {"rendezvous", CommMode::Rendezvous, "a send completes when the peer posts its receive"},
}};

/// "overlap", "blocking", "rendezvous", and back (kCommModes).
[[nodiscard]] constexpr std::string_view comm_mode_name(CommMode mode) {
  return enum_name(kCommModes, mode);
}
[[nodiscard]] constexpr std::optional<CommMode> parse_comm_mode(std::string_view name) {
  return enum_named(kCommModes, name);
}

}  // namespace pipeplan
