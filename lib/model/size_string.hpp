#pragma once
// Memory sizes as people write them: "2GiB", "1.5GB", "512MiB", "300000" (bytes).
#include <optional>
#include <string>
#include <string_view>

#include "model/units.hpp"

namespace pipeplan {

/// Parses a size: a non-negative decimal number, optionally followed by a unit B, KB, MB, GB,
/// TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), case-insensitive, with an optional
/// space between. Fractions round to the nearest byte. nullopt for anything else, for a negative,
/// NaN or infinite number, and for sizes of 8 EiB or more.
[[nodiscard]] std::optional<Bytes> parse_size(std::string_view text);

/// The sizes parse_size takes are below this (about 8 EiB, under the largest Bytes).
inline constexpr double kSizeLimitBytes = 9.2e18;

/// The bytes a size names, whatever its magnitude (possibly infinite): what parse_size checks
/// against kSizeLimitBytes, for a message that says a size is too large rather than malformed.
[[nodiscard]] std::optional<double> parse_size_bytes(std::string_view text);

/// A size for people: "1.50 GiB", "512.00 MiB", "900 B" (powers of 1024, two decimals).
[[nodiscard]] std::string format_size(Bytes bytes);

}  // namespace pipeplan
