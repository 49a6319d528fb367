#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "io/json_scalars.hpp"
#include "io/json_text.hpp"

using namespace pipeplan;

TEST_CASE("doubles are written as the JSON documents write them") {
  // Whole numbers keep ".0", small and large ones switch to exponents, fractions take the
  // shortest digits that read back: each compared with nlohmann's own dump of the value.
  for (double x : {0.0, -0.0, 1.0, 27.0, 0.1, 1.0 / 3.0, 0.11111111111111112, 1e-05, 0.0001, 123456789.125, 1e15, 1e16,
                   1e21, -2.5e-300, 4.9e-324, std::numeric_limits<double>::max()}) {
    CAPTURE(x);
    std::string out;
    append_json_double(out, x);
    CHECK(out == Json(x).dump());
  }
  std::string out;
  append_json_double(out, std::numeric_limits<double>::quiet_NaN());
  CHECK(out == "null");
}

TEST_CASE("integers and strings are written as the JSON documents write them") {
  std::string out;
  append_json_int(out, -9'223'372'036'854'775'807LL);
  CHECK(out == Json(-9'223'372'036'854'775'807LL).dump());
  out.clear();
  // A quote, a backslash, a control character, UTF-8, and a byte that is not UTF-8 (U+FFFD).
  const std::string text = "a\"b\\c\n\x01 caf\xc3\xa9 \xff";
  append_json_string(out, text);
  CHECK(out == Json(text).dump(-1, ' ', false, Json::error_handler_t::replace));
  CHECK(out == "\"a\\\"b\\\\c\\n\\u0001 caf\xc3\xa9 \xef\xbf\xbd\"");
}
