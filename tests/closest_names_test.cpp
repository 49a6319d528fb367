#include <doctest/doctest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "model/closest_names.hpp"

using namespace pipeplan;

TEST_CASE("closest names rank by edit distance and leave out far ones") {
  const std::array<std::string_view, 4> names = {"gpipe", "1f1b", "zbh1", "zbh2"};
  auto close = closest_names("zbh3", names, 3);
  REQUIRE(close.size() == 2);  // gpipe and 1f1b are 4 edits away, more than half their length
  CHECK(close[0] == "zbh1");
  CHECK(close[1] == "zbh2");
  CHECK(closest_names("completely-different", names, 3).empty());
}

TEST_CASE("a name that begins candidates suggests them first") {
  // Issue 31: --gpu a100 suggested h100 (1 edit) before a100-40gb and a100-80gb (5 edits each),
  // the cards the user meant; those the name begins now come first, in the candidates' order.
  const std::vector<std::string_view> gpus = {"h100", "a100-40gb", "a100-80gb", "l40s"};
  CHECK(closest_names("a100", gpus, 3) == std::vector<std::string>{"a100-40gb", "a100-80gb", "h100"});
  // One letter begins too much to mean anything: plain edit distance.
  CHECK(closest_names("a", std::vector<std::string_view>{"ab", "b"}, 2) == std::vector<std::string>{"ab", "b"});
}
