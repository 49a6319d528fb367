// The memory plot under the SVG timeline (svg_parts.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

#include "io/svg_parts.hpp"
#include "io/xml_escape.hpp"
#include "model/size_string.hpp"

namespace pipeplan::svg {

namespace {

// Dark or muted hues, none close to an op colour (blue, green, orange, purple, red), so a line
// is never read as an op kind.
constexpr std::array<const char*, 8> kDevicePalette = {"#222222", "#8c564b", "#17becf", "#bcbd22",
                                                       "#e377c2", "#00626b", "#999999", "#b8860b"};

// One device's step line, collapsed to at most three points per pixel column (the column's
// entry level, its highest level and its last), so a run of a million memory changes draws as
// a few thousand points and its peaks stay visible.
class StepLine {
 public:
  StepLine(std::string& out, double y0, double x0) : out_(out), level_(y0), x_(x0) {
    fmt::format_to(std::back_inserter(out_), "{:.2f},{:.2f}", x0, y0);
  }
  void to(double x, double y) {
    const double column = std::floor(x);
    if (column != column_) {
      flush();
      column_ = column;
      x_ = x;
      top_ = y;
    }
    top_ = std::min(top_, y);  // up the page is more memory
    last_ = y;
    pending_ = true;
  }
  void finish(double x_end) {
    flush();
    fmt::format_to(std::back_inserter(out_), " {:.2f},{:.2f}", x_end, level_);
  }

 private:
  void flush() {
    if (!pending_) return;
    auto to = std::back_inserter(out_);
    fmt::format_to(to, " {:.2f},{:.2f}", x_, level_);
    if (top_ != level_ && top_ != last_) fmt::format_to(to, " {:.2f},{:.2f}", x_, top_);
    fmt::format_to(to, " {:.2f},{:.2f}", x_, last_);
    level_ = last_;
    pending_ = false;
  }

  std::string& out_;
  double level_;
  double x_;
  double column_ = -1.0;
  double top_ = 0.0, last_ = 0.0;
  bool pending_ = false;
};

}  // namespace

std::string device_colour(int device, int devices) {
  if (devices <= static_cast<int>(kDevicePalette.size())) return kDevicePalette[static_cast<std::size_t>(device)];
  // Grey from 0x22 to 0xcc: dark for the first device, light for the last.
  const int level = 0x22 + (0xcc - 0x22) * device / std::max(devices - 1, 1);
  return fmt::format("#{0:02x}{0:02x}{0:02x}", level);
}

Bytes memory_top(const SimResult& r, std::optional<Bytes> limit) {
  Bytes top = 0;
  for (const DeviceTimeline& d : r.devices) top = std::max(top, d.peak_memory);
  return top == 0 ? 0 : std::max(top, limit.value_or(0));
}

int memory_height(Bytes top) {
  return top == 0 ? 0 : kMemory + kLegend + 6;
}

void write_memory_panel(TextSink& sink, const SimResult& r, const Frame& frame, int y, Bytes top,
                        std::optional<Bytes> limit) {
  if (top == 0) return;
  std::string& out = sink.buffer();
  auto to = std::back_inserter(out);
  auto y_of = [&](Bytes b) { return y + kMemory - static_cast<double>(b) / static_cast<double>(top) * (kMemory - 10); };
  const int devices = static_cast<int>(r.devices.size());
  fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">memory</text>\n", kLeft - 8, y + 12);
  fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLeft - 8, y + 26,
                 xml_escape(format_size(top)));
  fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>\n", kLeft - 8, y + kMemory);
  fmt::format_to(to, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#ccc\"/>\n", kLeft, y,
                 frame.width, kMemory);
  for (int d = 0; d < devices; ++d) {
    const DeviceTimeline& t = r.devices[static_cast<std::size_t>(d)];
    const std::string colour = device_colour(d, devices);
    fmt::format_to(to, "<polyline class=\"memory\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\" points=\"", colour);
    StepLine line(out, y_of(t.static_memory), kLeft);
    for (const MemoryPoint& p : t.memory) {
      line.to(frame.x(p.time), y_of(p.bytes));
      sink.flush_if_full();
    }
    line.finish(kLeft + frame.width);
    fmt::format_to(to, "\"><title>device {} memory</title></polyline>\n", d);
    fmt::format_to(to,
                   "<circle class=\"peak\" cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"3\" fill=\"{}\"><title>device {} peak {} at "
                   "{:.3f} ms</title></circle>\n",
                   frame.x(t.peak_time), y_of(t.peak_memory), colour, d, xml_escape(format_size(t.peak_memory)),
                   ns_to_ms(t.peak_time));
  }
  if (limit) {
    const double ly = y_of(*limit);
    fmt::format_to(to,
                   "<line class=\"limit\" x1=\"{}\" y1=\"{:.2f}\" x2=\"{}\" y2=\"{:.2f}\" stroke=\"#e15759\" "
                   "stroke-dasharray=\"6 4\"><title>memory limit {}</title></line>\n",
                   kLeft, ly, kLeft + frame.width, ly, xml_escape(format_size(*limit)));
  }

  // The device legend, in the lines' colours: each device up to 8, else the ramp's two ends.
  const int ly = y + kMemory + 18;
  double lx = kLeft;
  auto entry = [&](const std::string& colour, const std::string& label) {
    fmt::format_to(to,
                   "<line class=\"device-key\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{2:.1f}\" y2=\"{1}\" stroke=\"{3}\" "
                   "stroke-width=\"3\"/><text x=\"{4:.1f}\" y=\"{5}\">{6}</text>\n",
                   lx, ly - 4, lx + 18, colour, lx + 22, ly, xml_escape(label));
    lx += 32 + 6.2 * static_cast<double>(label.size());
  };
  fmt::format_to(to, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">lines</text>\n", kLeft - 8, ly);
  if (devices <= static_cast<int>(kDevicePalette.size())) {
    for (int d = 0; d < devices; ++d) entry(device_colour(d, devices), "device " + std::to_string(d));
  } else {
    entry(device_colour(0, devices), "device 0 (darkest)");
    entry(device_colour(devices - 1, devices), "device " + std::to_string(devices - 1) + " (lightest)");
  }
  fmt::format_to(to, "<circle cx=\"{:.1f}\" cy=\"{}\" r=\"3\" fill=\"#222\"/><text x=\"{:.1f}\" y=\"{}\">peak</text>\n",
                 lx + 4, ly - 4, lx + 12, ly);
  lx += 52;
  if (limit) {
    fmt::format_to(to,
                   "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{2:.1f}\" y2=\"{1}\" stroke=\"#e15759\" "
                   "stroke-dasharray=\"6 4\"/><text x=\"{3:.1f}\" y=\"{4}\">limit {5}</text>\n",
                   lx, ly - 4, lx + 24, lx + 28, ly, xml_escape(format_size(*limit)));
  }
  sink.flush_if_full();
}

}  // namespace pipeplan::svg
