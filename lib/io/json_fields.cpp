#include "io/json_fields.hpp"

#include <cmath>

#include "io/version.hpp"
#include "model/error.hpp"
#include "model/finite.hpp"
#include "model/size_string.hpp"

namespace pipeplan {

namespace {

constexpr int kFirstSchemaVersion = 1;  // every format began at 1

std::string shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

bool whole_in_range(double v, double min, double max) {
  return finite_within(v, min, max) && v == std::floor(v);
}

}  // namespace

JsonPath JsonPath::key(std::string_view name) const {
  JsonPath p = *this;
  if (!p.path_.empty()) p.path_ += '.';
  p.path_ += name;
  return p;
}

JsonPath JsonPath::index(std::size_t i) const {
  JsonPath p = *this;
  p.path_ += "[" + std::to_string(i) + "]";
  return p;
}

std::string JsonPath::where() const {
  return path_.empty() ? source_ : source_ + ": " + path_;
}

void fail_field(const JsonPath& at, std::string_view expected, const Json& got) {
  throw Error(at.where() + ": expected " + std::string(expected) + ", got " + shown(got));
}

const Json& member(const Json& value, std::string_view name, const JsonPath& at) {
  const Json* found = optional_member(value, name, at);
  if (found == nullptr) throw Error(at.key(name).where() + ": missing; this field is required");
  return *found;
}

const Json* optional_member(const Json& value, std::string_view name, const JsonPath& at) {
  if (!value.is_object()) fail_field(at, "an object", value);
  auto it = value.find(name);
  return it == value.end() ? nullptr : &*it;
}

double read_ms(const Json& value, const JsonPath& at) {
  if (!value.is_number() || !finite_within(value.get<double>(), 0.0, HUGE_VAL)) {
    fail_field(at, "a non-negative number of milliseconds", value);
  }
  if (value.get<double>() > kMaxMs) fail_field(at, "a number of milliseconds up to 1e10 (115 days)", value);
  return value.get<double>();
}

double read_positive(const Json& value, const JsonPath& at) {
  if (!value.is_number() || !finite_within(value.get<double>(), 0.0, HUGE_VAL) || value.get<double>() == 0.0) {
    fail_field(at, "a number above zero", value);
  }
  return value.get<double>();
}

Bytes read_bytes(const Json& value, const JsonPath& at) {
  constexpr std::string_view kExpected = "a non-negative whole number of bytes or a size such as \"2GiB\"";
  if (value.is_string()) {
    auto bytes = parse_size(value.get<std::string>());
    if (!bytes) fail_field(at, kExpected, value);
    return *bytes;
  }
  if (value.is_number_unsigned()) {
    if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) fail_field(at, kExpected, value);
    return static_cast<Bytes>(value.get<std::uint64_t>());
  }
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) return value.get<std::int64_t>();
  if (value.is_number_float() && whole_in_range(value.get<double>(), 0.0, 9.2e18)) {
    return static_cast<Bytes>(value.get<double>());
  }
  fail_field(at, kExpected, value);
}

int read_int(const Json& value, const JsonPath& at, int min, int max) {
  if (!value.is_number() || !whole_in_range(value.get<double>(), min, max)) {
    fail_field(at, "an integer from " + std::to_string(min) + " to " + std::to_string(max), value);
  }
  return static_cast<int>(value.get<double>());
}

const std::string& read_string(const Json& value, const JsonPath& at) {
  if (!value.is_string()) fail_field(at, "a string", value);
  return value.get_ref<const std::string&>();
}

const Json& read_array(const Json& value, const JsonPath& at) {
  if (!value.is_array()) fail_field(at, "an array", value);
  return value;
}

Json file_header(std::string_view format, int schema_version) {
  Json j;
  j["format"] = format;
  j["schema_version"] = schema_version;
  j["tool"] = tool_version();
  return j;
}

int check_header(const Json& document, std::string_view expected_format, const JsonPath& at, int newest) {
  const std::string& format = read_string(member(document, "format", at), at.key("format"));
  if (format != expected_format) {
    fail_field(at.key("format"), "\"" + std::string(expected_format) + "\"", Json(format));
  }
  const Json& version = member(document, "schema_version", at);
  if (version.is_number() && version.get<double>() > newest) {
    throw Error(at.key("schema_version").where() + ": version " + shown(version) +
                " is newer than this pipeplan reads (" + std::to_string(newest) + "); upgrade pipeplan");
  }
  return read_int(version, at.key("schema_version"), kFirstSchemaVersion, newest);
}

}  // namespace pipeplan
