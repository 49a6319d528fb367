#include <doctest/doctest.h>

#include <string>

#include "io/json_text.hpp"
#include "test_support.hpp"

using namespace pipeplan;

TEST_CASE("malformed JSON is reported with its line and column") {
  // The bad literal NaN starts on line 3, column 12 (two spaces, "b": and a space, [1, and a space).
  std::string text = "{\n  \"a\": 1,\n  \"b\": [1, NaN]\n}\n";
  std::string message = test::error_of([&] { (void)parse_json(text, "p.json"); });
  CHECK(message.rfind("p.json:3:12: malformed JSON: ", 0) == 0);
  CHECK(message.find("invalid literal") != std::string::npos);
}

TEST_CASE("truncated JSON points at the end") {
  std::string message = test::error_of([&] { (void)parse_json("{\"a\": [1, 2", "t.json"); });
  CHECK(message.rfind("t.json:1:12: malformed JSON", 0) == 0);
}

TEST_CASE("a number beyond a double's range is refused, not taken as infinity") {
  CHECK(test::error_of([] { (void)parse_json("{\"f_ms\": 1e400}", "big.json"); }) ==
        "big.json: malformed JSON: number overflow parsing '1e400'");
}

TEST_CASE("hostile nesting is refused before it can exhaust the stack") {
  std::string deep(100000, '[');
  CHECK(test::error_of([&] { (void)parse_json(deep, "d.json"); }) == "d.json: JSON nested deeper than 256 levels");
  // Brackets inside strings do not count.
  CHECK(parse_json("{\"s\": \"" + std::string(1000, '[') + "\"}", "s.json").is_object());
}

TEST_CASE("leaf containers stay on one line") {
  Json j = Json::parse(R"({"format": "x", "list": [1, 2], "ops": [{"kind": "F", "stage": 0}]})");
  CHECK(to_json_text(j) ==
        "{\n  \"format\": \"x\",\n  \"list\": [1, 2],\n  \"ops\": [\n    {\"kind\": \"F\", \"stage\": 0}\n  ]\n}\n");
}

TEST_CASE("a file that cannot be read names its path") {
  CHECK(test::error_of([] { (void)read_text_file("/no/such/file.json"); }) ==
        "cannot read /no/such/file.json: No such file or directory");
}
