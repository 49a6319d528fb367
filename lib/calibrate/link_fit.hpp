#pragma once
// A link's time model from measured transfers (docs/gpu.md). The profile takes the measured
// table, interpolated at the size of the activation a stage sends: NCCL switches protocols and
// pipelines differently as the size grows, so no line latency + bytes / bandwidth is right at
// every size. The line stays as a summary, fitted so that every size weighs alike: least
// squares on the relative error, since plain least squares on milliseconds fits the largest
// sizes and misses the tens of MiB that pipelines send by 15% or more.
#include <span>
#include <vector>

namespace pipeplan {

struct TransferSample {
  double bytes = 0;
  double ms = 0;
};

struct LinkFit {
  double latency_ms = 0;
  double bandwidth_gb_per_s = 0;    ///< 1 GB = 1e9 bytes
  double r_squared = 0;             ///< of the line on the samples' milliseconds
  double worst_relative_error = 0;  ///< the largest |line - sample| / sample
};

/// The line latency + bytes / bandwidth minimising the sum of squared relative errors (Eigen).
/// Throws Error with fewer than two distinct sizes, a sample that is not finite, a negative size
/// or a time that is not positive, or a fit whose slope is not positive (the time must grow with
/// the size).
[[nodiscard]] LinkFit fit_link(std::span<const TransferSample> samples);

/// The same line by plain least squares on the milliseconds: what fit_link did before; kept to
/// show, in the tests, what the relative weighting fixes.
[[nodiscard]] LinkFit fit_link_unweighted(std::span<const TransferSample> samples);

/// The time of `bytes` by linear interpolation between the measured sizes around it (the
/// samples sorted by size), extrapolating with the end segments. Throws Error with fewer than
/// two samples.
[[nodiscard]] double interpolate_ms(std::span<const TransferSample> samples, double bytes);

}  // namespace pipeplan
