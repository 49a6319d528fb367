#include "io/json_scalars.hpp"

#include <array>
#include <charconv>
#include <cmath>

#include "io/json_text.hpp"

namespace pipeplan {

void append_json_int(std::string& out, long long value) {
  std::array<char, 24> buffer{};
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), end);
}

void append_json_double(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  // nlohmann's own Grisu2 formatter, the one its serializer calls: the same digits and layout.
  std::array<char, 64> buffer{};
  char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), end);
}

void append_json_string(std::string& out, std::string_view text) {
  // Names and labels are short and few; the document's own escaping keeps them identical.
  out += Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace pipeplan
