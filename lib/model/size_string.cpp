#include "model/size_string.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "model/finite.hpp"

namespace pipeplan {

namespace {

struct Unit {
  std::string_view name;
  double bytes;
};

constexpr std::array<Unit, 10> kUnits = {{{"", 1.0},
                                          {"b", 1.0},
                                          {"kb", 1e3},
                                          {"mb", 1e6},
                                          {"gb", 1e9},
                                          {"tb", 1e12},
                                          {"kib", 1024.0},
                                          {"mib", 1024.0 * 1024.0},
                                          {"gib", 1024.0 * 1024.0 * 1024.0},
                                          {"tib", 1024.0 * 1024.0 * 1024.0 * 1024.0}}};

std::string lower(std::string_view text) {
  std::string out;
  for (char c : text) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

}  // namespace

std::optional<double> parse_size_bytes(std::string_view text) {
  std::string s(text);
  std::size_t start = s.find_first_not_of(' ');
  if (start == std::string::npos) return std::nullopt;
  // Only digits and one decimal point: no sign, exponent, hex, "inf" or "nan".
  std::size_t end = start;
  bool seen_point = false;
  bool seen_digit = false;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || (s[end] == '.' && !seen_point))) {
    seen_point = seen_point || s[end] == '.';
    seen_digit = seen_digit || s[end] != '.';
    ++end;
  }
  if (!seen_digit) return std::nullopt;
  double number = std::strtod(s.substr(start, end - start).c_str(), nullptr);
  std::string unit = lower(s.substr(end));
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  while (!unit.empty() && unit.back() == ' ') unit.pop_back();
  for (const Unit& u : kUnits) {
    if (u.name != unit) continue;
    return std::round(number * u.bytes);
  }
  return std::nullopt;
}

std::optional<Bytes> parse_size(std::string_view text) {
  const std::optional<double> bytes = parse_size_bytes(text);
  if (!bytes || !finite_within(*bytes, 0.0, kSizeLimitBytes) || *bytes == kSizeLimitBytes) return std::nullopt;
  return static_cast<Bytes>(*bytes);
}

std::string format_size(Bytes bytes) {
  static constexpr std::array<const char*, 5> kNames = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (std::fabs(value) >= 1024.0 && unit + 1 < kNames.size()) {
    value /= 1024.0;
    ++unit;
  }
  char text[48];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, "%.2f %s", value, kNames[unit]);
  }
  return text;
}

}  // namespace pipeplan
