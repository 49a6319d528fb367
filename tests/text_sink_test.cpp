#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "io/text_sink.hpp"

using namespace pipeplan;

TEST_CASE("a sink hands its text on in order, a piece whenever the buffer reaches the chunk, the rest at flush") {
  std::vector<std::string> pieces;
  TextSink sink([&](std::string_view p) { pieces.emplace_back(p); }, 4);
  sink << "ab";
  sink.flush_if_full();  // 2 of 4 bytes: kept
  CHECK(pieces.empty());
  sink << "cde" << 'f';
  sink.flush_if_full();  // 6 >= 4: handed on whole, so a record is never split by the sink
  REQUIRE(pieces.size() == 1);
  CHECK(pieces[0] == "abcdef");
  sink << "g";
  sink.flush();
  sink.flush();  // nothing pending: no empty piece
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[1] == "g");
}

TEST_CASE("collect_text gives the whole text in one string") {
  const std::string text = collect_text([](TextSink& sink) {
    for (int i = 0; i < 1000; ++i) {
      sink << std::to_string(i) << ',';
      sink.flush_if_full();
    }
  });
  CHECK(text.size() == 10 * 2 + 90 * 3 + 900 * 4);  // one-, two- and three-digit numbers, each with its comma
  CHECK(text.starts_with("0,1,2,"));
  CHECK(text.ends_with("998,999,"));
}
