#include "io/config_keys.hpp"

#include <string>

#include "model/error.hpp"

namespace pipeplan {

namespace {

std::string either(std::initializer_list<std::string_view> names) {
  std::string text;
  for (std::string_view n : names) text += (text.empty() ? "'" : "' or '") + std::string(n);
  return text + "'";
}

}  // namespace

const Json* first_key(const Json& document, std::initializer_list<std::string_view> names, const JsonPath& root,
                      std::string_view& found) {
  for (std::string_view name : names) {
    if (const Json* v = optional_member(document, name, root); v != nullptr && !v->is_null()) {
      found = name;
      return v;
    }
  }
  return nullptr;
}

int required_key(const Json& document, std::initializer_list<std::string_view> names, const JsonPath& root, int min,
                 int max) {
  std::string_view found;
  const Json* v = first_key(document, names, root, found);
  if (v == nullptr) throw Error(root.where() + ": missing " + either(names) + " (a positive integer)");
  return read_int(*v, root.key(found), min, max);
}

int optional_key(const Json& document, std::initializer_list<std::string_view> names, const JsonPath& root, int min,
                 int max, int fallback) {
  std::string_view found;
  const Json* v = first_key(document, names, root, found);
  return v == nullptr ? fallback : read_int(*v, root.key(found), min, max);
}

bool optional_flag(const Json& document, std::string_view name, const JsonPath& root, bool fallback) {
  const Json* v = optional_member(document, name, root);
  if (v == nullptr || v->is_null()) return fallback;
  if (!v->is_boolean()) fail_field(root.key(name), "true or false", *v);
  return v->get<bool>();
}

std::string optional_text(const Json& document, std::string_view name, const JsonPath& root,
                          std::string_view fallback) {
  const Json* v = optional_member(document, name, root);
  if (v == nullptr || v->is_null()) return std::string(fallback);
  if (!v->is_string()) fail_field(root.key(name), "a string", *v);
  return v->get<std::string>();
}

}  // namespace pipeplan
