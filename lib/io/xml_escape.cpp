#include "io/xml_escape.hpp"

namespace pipeplan {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out += c;
        break;
      // XML 1.0 allows no other control character, not even as &#1;: one in a schedule's name
      // would make the whole SVG malformed, so it shows as the replacement character.
      default:
        out += static_cast<unsigned char>(c) < 0x20 ? std::string_view("\uFFFD") : std::string_view(&c, 1);
    }
  }
  return out;
}

}  // namespace pipeplan
