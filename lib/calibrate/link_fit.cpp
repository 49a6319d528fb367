#include "calibrate/link_fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

#include "model/error.hpp"

namespace pipeplan {

LinkFit fit_link(std::span<const TransferSample> samples) {
  std::vector<double> sizes;
  for (const TransferSample& s : samples) {
    if (!std::isfinite(s.bytes) || !std::isfinite(s.ms) || s.bytes < 0 || s.ms < 0) {
      throw Error("transfer samples must be finite and non-negative");
    }
    if (std::find(sizes.begin(), sizes.end(), s.bytes) == sizes.end()) sizes.push_back(s.bytes);
  }
  if (sizes.size() < 2) throw Error("a link fit needs transfers of at least two sizes");
  // Scale the sizes to GB so that the two columns have comparable magnitudes.
  const auto n = static_cast<Eigen::Index>(samples.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i, 0) = 1.0;
    a(i, 1) = samples[static_cast<std::size_t>(i)].bytes / 1e9;
    y(i) = samples[static_cast<std::size_t>(i)].ms;
  }
  const Eigen::Vector2d x = a.colPivHouseholderQr().solve(y);
  if (!(x(1) > 0)) throw Error("the transfer times do not grow with the size: no bandwidth to fit");
  LinkFit fit;
  fit.latency_ms = x(0);
  fit.bandwidth_gb_per_s = 1e3 / x(1);  // x(1) is ms per GB
  const double mean = y.mean();
  const double total = (y.array() - mean).square().sum();
  const double residual = (a * x - y).squaredNorm();
  fit.r_squared = total > 0 ? 1.0 - residual / total : 1.0;
  return fit;
}

double interpolate_ms(std::span<const TransferSample> samples, double bytes) {
  if (samples.size() < 2) throw Error("interpolation needs at least two measured sizes");
  std::vector<TransferSample> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end(), [](const TransferSample& a, const TransferSample& b) { return a.bytes < b.bytes; });
  auto upper = std::upper_bound(sorted.begin(), sorted.end(), bytes,
                                [](double value, const TransferSample& s) { return value < s.bytes; });
  if (upper == sorted.begin()) ++upper;
  if (upper == sorted.end()) --upper;
  const TransferSample& lo = *(upper - 1);
  const TransferSample& hi = *upper;
  if (hi.bytes == lo.bytes) return lo.ms;
  return lo.ms + (hi.ms - lo.ms) * (bytes - lo.bytes) / (hi.bytes - lo.bytes);
}

}  // namespace pipeplan
