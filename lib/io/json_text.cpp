#include "io/json_text.hpp"

#include "model/error.hpp"

namespace pipeplan {

namespace {

constexpr int kMaxDepth = 256;

// nlohmann's parser recurses once per level, so hostile nesting could exhaust the stack.
void check_depth(std::string_view text, const std::string& source) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) {
        throw Error(source + ": JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

bool is_leaf_container(const Json& value) {
  for (const Json& item : value) {
    if (item.is_structured()) return false;
  }
  return true;
}

std::string scalar(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A container of scalars on one line: {"kind": "F", "stage": 0} or [0, 1, 2].
void dump_flat(const Json& value, std::string& out) {
  const bool object = value.is_object();
  out += object ? '{' : '[';
  bool first = true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!first) out += ", ";
    first = false;
    if (object) out += Json(it.key()).dump() + ": ";
    out += scalar(*it);
  }
  out += object ? '}' : ']';
}

void dump(const Json& value, int indent, std::string& out) {
  if (!value.is_structured()) {
    out += scalar(value);
    return;
  }
  if (is_leaf_container(value)) {
    dump_flat(value, out);
    return;
  }
  const bool object = value.is_object();
  std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  out += object ? "{\n" : "[\n";
  bool first = true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += pad;
    if (object) out += Json(it.key()).dump() + ": ";
    dump(*it, indent + 2, out);
  }
  out += "\n" + std::string(static_cast<std::size_t>(indent), ' ') + (object ? "}" : "]");
}

}  // namespace

Json parse_json(std::string_view text, const std::string& source) {
  check_depth(text, source);
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // e.byte is the 1-based offset of the offending character.
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string reason = e.what();
    std::size_t colon = reason.find(": ", reason.find("parse error"));
    if (colon != std::string::npos) reason = reason.substr(colon + 2);
    throw Error(source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": malformed JSON: " + reason);
  } catch (const Json::out_of_range& e) {
    // A number beyond a double's range, such as 1e400; nlohmann gives no position for it.
    std::string reason = e.what();
    std::size_t bracket = reason.find("] ");
    throw Error(source + ": malformed JSON: " + (bracket == std::string::npos ? reason : reason.substr(bracket + 2)));
  }
}

std::string to_json_text(const Json& value) {
  std::string out;
  dump(value, 0, out);
  out += '\n';
  return out;
}

}  // namespace pipeplan
