#pragma once
// Typed access to the fields of a parsed JSON document. Every failure throws Error naming the
// source, the field's path and what was expected: "p.json: stages[2].f_ms: expected a
// non-negative number of milliseconds, got -1".
#include <string>
#include <string_view>

#include "io/json_text.hpp"
#include "model/units.hpp"

namespace pipeplan {

/// A field's place in a document, for messages.
class JsonPath {
 public:
  explicit JsonPath(std::string source) : source_(std::move(source)) {}
  [[nodiscard]] JsonPath key(std::string_view name) const;
  [[nodiscard]] JsonPath index(std::size_t i) const;
  /// "SOURCE: PATH" (or "SOURCE" for the document itself).
  [[nodiscard]] std::string where() const;

 private:
  std::string source_;
  std::string path_;
};

/// Throws Error: "WHERE: expected EXPECTED, got VALUE".
[[noreturn]] void fail_field(const JsonPath& at, std::string_view expected, const Json& got);

/// The member `name` of the object `value`; throws when `value` is not an object or lacks it.
[[nodiscard]] const Json& member(const Json& value, std::string_view name, const JsonPath& at);

/// The member `name`, or nullptr when absent; throws when `value` is not an object.
[[nodiscard]] const Json* optional_member(const Json& value, std::string_view name, const JsonPath& at);

/// A finite, non-negative number of milliseconds.
[[nodiscard]] double read_ms(const Json& value, const JsonPath& at);

/// A finite number strictly above zero.
[[nodiscard]] double read_positive(const Json& value, const JsonPath& at);

/// A non-negative whole number of bytes, or a size string such as "2GiB".
[[nodiscard]] Bytes read_bytes(const Json& value, const JsonPath& at);

/// An integer from `min` to `max`.
[[nodiscard]] int read_int(const Json& value, const JsonPath& at, int min, int max);

/// A string.
[[nodiscard]] const std::string& read_string(const Json& value, const JsonPath& at);

/// An array (possibly empty).
[[nodiscard]] const Json& read_array(const Json& value, const JsonPath& at);

/// A new pipeplan document: {"format": format, "schema_version": schema_version, "tool":
/// "pipeplan X.Y.Z"}. A format writes a version above 1 only for a document an older reader
/// would misread (docs/formats.md, "Versions").
[[nodiscard]] Json file_header(std::string_view format, int schema_version = 1);

/// Checks the "format" and "schema_version" members of a pipeplan file and returns the version:
/// `format` must equal `expected_format` and the version be from 1 to `newest`, the highest this
/// reader knows for the format (a higher one asks to upgrade pipeplan).
int check_header(const Json& document, std::string_view expected_format, const JsonPath& at, int newest = 1);

}  // namespace pipeplan
