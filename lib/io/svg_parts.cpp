// The layout and colours the SVG timeline's pieces share (svg_parts.hpp).
#include "io/svg_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace pipeplan::svg {

namespace {

// Tableau 10's first five, so the kinds read apart in print and on screen.
constexpr std::array<std::string_view, kOpKindCount> kOpColours = {"#4e79a7", "#59a14f", "#f28e2b", "#b07aa1",
                                                                   "#e15759"};

// The red, green and blue of "#rrggbb".
std::array<double, 3> channels(std::string_view hex) {
  std::array<double, 3> c{};
  for (std::size_t i = 0; i < 3; ++i) c[i] = std::stoi(std::string(hex.substr(1 + 2 * i, 2)), nullptr, 16);
  return c;
}

constexpr double kLane = 0xf4;  // the lane's light grey, under a later chunk's translucent colour

}  // namespace

std::string mixed_colour(const std::array<SimTime, 2 * kOpKindCount>& covered) {
  std::array<double, 3> sum{};
  double total = 0;
  for (std::size_t k = 0; k < covered.size(); ++k) {
    if (covered[k] == 0) continue;
    const auto weight = static_cast<double>(covered[k]);
    const std::array<double, 3> c = channels(kOpColours[k / 2]);
    for (std::size_t i = 0; i < 3; ++i) {
      sum[i] += weight * (k % 2 == 0 ? c[i] : kLaterChunkAlpha * c[i] + (1 - kLaterChunkAlpha) * kLane);
    }
    total += weight;
  }
  std::array<int, 3> rgb{};
  for (std::size_t i = 0; i < 3; ++i) {
    rgb[i] = total > 0 ? std::min(255, static_cast<int>(std::lround(sum[i] / total / 8.0)) * 8) : 0xf4;
  }
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

bool similar_colours(std::string_view a, std::string_view b) {
  const std::array<double, 3> x = channels(a), y = channels(b);
  for (std::size_t i = 0; i < 3; ++i) {
    if (std::abs(x[i] - y[i]) > 24) return false;
  }
  return true;
}

int lane_height(int devices) {
  return std::clamp(480 / std::max(devices, 1), 8, 22);
}

int lane_gap(int devices) {
  return lane_height(devices) >= 16 ? 4 : 1;
}

std::string_view op_colour(OpKind kind) {
  return kOpColours[static_cast<std::size_t>(kind)];
}

}  // namespace pipeplan::svg
