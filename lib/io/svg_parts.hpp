#pragma once
// The pieces of the SVG timeline (svg_timeline.cpp draws the lanes, memory_panel.cpp the memory
// under them): the layout, the colours and the time scale they share.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "io/text_sink.hpp"
#include "model/op.hpp"
#include "model/units.hpp"
#include "sim/sim_result.hpp"

namespace pipeplan::svg {

inline constexpr int kLeft = 90;     // room for the lane names
inline constexpr int kTop = 34;      // room for the title
inline constexpr int kAxis = 30;     // the time axis under the lanes
inline constexpr int kLegend = 24;   // a row of legend entries
inline constexpr int kMemory = 130;  // the memory plot
inline constexpr int kRight = 20;

/// The time scale of a panel: `width` pixels for `end_ms` milliseconds, from x = kLeft.
struct Frame {
  int width = 1200;
  double end_ms = 1.0;
  [[nodiscard]] double scale() const { return width / end_ms; }  ///< pixels per millisecond
  [[nodiscard]] double x(SimTime t) const { return kLeft + ns_to_ms(t) * scale(); }
};

/// A device lane's height: 22 pixels, thinner past 21 devices so that 64 lanes stay on a screen
/// (480 pixels in all, at least 8 each).
[[nodiscard]] int lane_height(int devices);
/// The gap between lanes: 4 pixels, 1 once lanes are thin.
[[nodiscard]] int lane_gap(int devices);

/// The colour of an op kind (Tableau 10: F blue, B green, W orange, BW purple, FB red).
[[nodiscard]] std::string_view op_colour(OpKind kind);
/// A device's later chunks are drawn at this opacity over the lane's light grey: lighter.
inline constexpr std::string_view kLaterChunkOpacity = "0.55";
inline constexpr double kLaterChunkAlpha = 0.55;

/// The colour of a pixel column of a lane that holds several ops: their colours (a later
/// chunk's lighter, as drawn over the lane) mixed in proportion to the time each covers, each
/// channel rounded to a multiple of 8 so that a steady state's columns come out alike and merge.
[[nodiscard]] std::string mixed_colour(const std::array<SimTime, 2 * kOpKindCount>& covered);

/// True when two "#rrggbb" colours differ by at most 24 in every channel: too little to tell
/// apart in a thin column.
[[nodiscard]] bool similar_colours(std::string_view a, std::string_view b);

/// A device's colour in the memory plot, apart from every op colour: eight dark or muted hues
/// up to 8 devices, else a ramp from black (device 0) to light grey (the last).
[[nodiscard]] std::string device_colour(int device, int devices);

/// The scale of a memory plot: the highest peak of the runs it must fit, or the limit when
/// higher; 0 when no device holds any memory (no memory costs: the plot is left out).
[[nodiscard]] Bytes memory_top(const SimResult& result, std::optional<Bytes> limit);

/// The height of the memory plot and its legend for a scale from memory_top; 0 when it is 0.
[[nodiscard]] int memory_height(Bytes top);

/// Each device's memory as a step line in its colour, its peak as a dot, the limit dashed, on
/// the scale `top`, from y = `y`; then the device legend. Streams point by point and draws at
/// most a few points per pixel column, whatever the run's length.
void write_memory_panel(TextSink& sink, const SimResult& result, const Frame& frame, int y, Bytes top,
                        std::optional<Bytes> limit);

}  // namespace pipeplan::svg
