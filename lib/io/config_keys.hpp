#pragma once
// Reading a Hugging Face config.json's keys: the first of several names a size goes by, with
// the errors that name the key (docs/costs.md, "Model input").
#include <initializer_list>
#include <string_view>

#include "io/json_fields.hpp"

namespace pipeplan {

/// Wide enough for any model people train, narrow enough that every product of two of them and
/// the sequence fits in 64 bits (docs/costs.md).
inline constexpr int kMaxConfigWidth = 1 << 20;

/// The first of `names` the document has with a value other than null, or nullptr; `found`
/// names it.
[[nodiscard]] const Json* first_key(const Json& document, std::initializer_list<std::string_view> names,
                                    const JsonPath& root, std::string_view& found);

/// An integer from min to max under the first of `names`: required (Error naming them when
/// absent), or `fallback` when absent.
[[nodiscard]] int required_key(const Json& document, std::initializer_list<std::string_view> names,
                               const JsonPath& root, int min, int max);
[[nodiscard]] int optional_key(const Json& document, std::initializer_list<std::string_view> names,
                               const JsonPath& root, int min, int max, int fallback);

/// true or false under `name`, `fallback` when absent or null.
[[nodiscard]] bool optional_flag(const Json& document, std::string_view name, const JsonPath& root, bool fallback);

/// A string under `name`, `fallback` when absent or null.
[[nodiscard]] std::string optional_text(const Json& document, std::string_view name, const JsonPath& root,
                                        std::string_view fallback);

}  // namespace pipeplan
