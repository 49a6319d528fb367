#include <doctest/doctest.h>

#include <array>
#include <string_view>

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
