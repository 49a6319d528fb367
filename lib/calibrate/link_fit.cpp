#include "calibrate/link_fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

#include "model/error.hpp"

namespace pipeplan {

namespace {

// Least squares of latency + slope * GB with each row weighted by `weight(sample)`.
template <class Weight>
LinkFit fit(std::span<const TransferSample> samples, Weight weight) {
  std::vector<double> sizes;
  for (const TransferSample& s : samples) {
    if (!std::isfinite(s.bytes) || !std::isfinite(s.ms) || s.bytes < 0 || !(s.ms > 0)) {
      throw Error("transfer samples must be finite, with sizes not negative and times positive");
    }
    if (std::find(sizes.begin(), sizes.end(), s.bytes) == sizes.end()) sizes.push_back(s.bytes);
  }
  if (sizes.size() < 2) throw Error("a link fit needs transfers of at least two sizes");
  // Sizes in GB, so that the two columns have comparable magnitudes.
  const auto n = static_cast<Eigen::Index>(samples.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const TransferSample& s = samples[static_cast<std::size_t>(i)];
    const double w = weight(s);
    a(i, 0) = w;
    a(i, 1) = w * s.bytes / 1e9;
    y(i) = w * s.ms;
  }
  const Eigen::Vector2d x = a.colPivHouseholderQr().solve(y);
  if (!(x(1) > 0)) throw Error("the transfer times do not grow with the size: no bandwidth to fit");
  LinkFit out;
  out.latency_ms = x(0);
  out.bandwidth_gb_per_s = 1e3 / x(1);  // x(1) is ms per GB
  double mean = 0;
  for (const TransferSample& s : samples) mean += s.ms / static_cast<double>(samples.size());
  double total = 0, residual = 0;
  for (const TransferSample& s : samples) {
    const double line = x(0) + x(1) * s.bytes / 1e9;
    total += (s.ms - mean) * (s.ms - mean);
    residual += (line - s.ms) * (line - s.ms);
    out.worst_relative_error = std::max(out.worst_relative_error, std::abs(line - s.ms) / s.ms);
  }
  out.r_squared = total > 0 ? 1.0 - residual / total : 1.0;
  return out;
}

}  // namespace

LinkFit fit_link(std::span<const TransferSample> samples) {
  return fit(samples, [](const TransferSample& s) { return 1.0 / s.ms; });
}

LinkFit fit_link_unweighted(std::span<const TransferSample> samples) {
  return fit(samples, [](const TransferSample&) { return 1.0; });
}

double interpolate_ms(std::span<const TransferSample> samples, double bytes) {
  if (samples.size() < 2) throw Error("interpolation needs at least two measured sizes");
  std::vector<TransferSample> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const TransferSample& a, const TransferSample& b) { return a.bytes < b.bytes; });
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
