#include "io/printable.hpp"

#include <fmt/format.h>

namespace pipeplan {

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f) || (c >= 0x80 && c != 0xc2)) {
      out += text[i];
    } else if (c < 0x80) {
      out += fmt::format("\\x{:02x}", c);
    } else if (i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));  // C1: U+0080 .. U+009F
      ++i;
    } else {
      out += text[i];  // 0xc2 leading U+00A0 and above
    }
  }
  return out;
}

}  // namespace pipeplan
