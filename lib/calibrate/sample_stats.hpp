#pragma once
// Summary statistics of repeated timings (docs/gpu.md): median, 10th and 90th percentiles,
// mean and coefficient of variation.
#include <cstddef>
#include <span>

namespace pipeplan {

struct SampleStats {
  std::size_t count = 0;
  double median = 0, p10 = 0, p90 = 0, mean = 0;
  double cv = 0;  ///< standard deviation (of the sample, n - 1) over the mean; 0 for one sample
};

/// Percentiles by linear interpolation between the closest ranks (NumPy's default). Throws
/// Error for no samples or a value that is not finite.
[[nodiscard]] SampleStats stats_of(std::span<const double> samples);

}  // namespace pipeplan
