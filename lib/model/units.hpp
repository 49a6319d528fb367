#pragma once
// Units of the model. Simulated time is an integer number of nanoseconds so that event order and
// sums are exact and two runs give identical bytes; inputs and outputs are in milliseconds.
#include <cstdint>

namespace pipeplan {

/// Simulated time, in nanoseconds since the start of the run.
using SimTime = std::int64_t;

/// Memory, in bytes.
using Bytes = std::int64_t;

/// Milliseconds to nanoseconds, rounded to the nearest nanosecond (halves away from zero).
/// This is the only place where milliseconds become simulated time.
/// Throws Error when `ms` is not finite, negative, or beyond about 100 days.
[[nodiscard]] SimTime ms_to_ns(double ms);

/// The longest time ms_to_ns takes: 1e10 ms is about 115 days, far beyond any training step and
/// far below int64 overflow in nanoseconds. Readers check it so that the error names the field.
inline constexpr double kMaxMs = 1e10;

/// Nanoseconds to milliseconds, for output.
[[nodiscard]] double ns_to_ms(SimTime ns);

}  // namespace pipeplan
