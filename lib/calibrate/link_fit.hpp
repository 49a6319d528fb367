#pragma once
// A link's time model from measured transfers (docs/gpu.md): time = latency + bytes / bandwidth,
// fitted by least squares, and the measured table itself for interpolation.
#include <span>
#include <vector>

namespace pipeplan {

struct TransferSample {
  double bytes = 0;
  double ms = 0;
};

struct LinkFit {
  double latency_ms = 0;
  double bandwidth_gb_per_s = 0;  ///< 1 GB = 1e9 bytes
  double r_squared = 0;           ///< of the fit on the samples
};

/// The least-squares line through the samples (Eigen). Throws Error with fewer than two
/// distinct sizes, a non-finite or negative sample, or a fit whose slope is not positive (the
/// time must grow with the size).
[[nodiscard]] LinkFit fit_link(std::span<const TransferSample> samples);

/// The time of `bytes` by linear interpolation between the measured sizes around it (the
/// samples sorted by size), extrapolating with the end segments. Throws Error with fewer than
/// two samples.
[[nodiscard]] double interpolate_ms(std::span<const TransferSample> samples, double bytes);

}  // namespace pipeplan
