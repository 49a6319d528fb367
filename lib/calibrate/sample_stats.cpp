#include "calibrate/sample_stats.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/error.hpp"

namespace pipeplan {

namespace {

// The q-quantile of sorted values: position q (n - 1), interpolated.
double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

}  // namespace

SampleStats stats_of(std::span<const double> samples) {
  if (samples.empty()) throw Error("statistics of no samples");
  std::vector<double> sorted(samples.begin(), samples.end());
  for (double v : sorted) {
    if (!std::isfinite(v)) throw Error("a timing sample is not a finite number");
  }
  std::sort(sorted.begin(), sorted.end());
  SampleStats s;
  s.count = sorted.size();
  s.median = quantile(sorted, 0.5);
  s.p10 = quantile(sorted, 0.1);
  s.p90 = quantile(sorted, 0.9);
  double sum = 0;
  for (double v : sorted) sum += v;
  s.mean = sum / static_cast<double>(s.count);
  if (s.count > 1 && s.mean != 0) {
    double squares = 0;
    for (double v : sorted) squares += (v - s.mean) * (v - s.mean);
    s.cv = std::sqrt(squares / static_cast<double>(s.count - 1)) / s.mean;
  }
  return s;
}

}  // namespace pipeplan
