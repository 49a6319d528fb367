#include <doctest/doctest.h>

#include <functional>
#include <limits>
#include <random>

#include "estimate/layout.hpp"
#include "test_support.hpp"

using namespace pipeplan;

namespace {

int total_layers(const Layout& layout) {
  int n = 0;
  for (const StagePieces& s : layout) n += s.layers;
  return n;
}

}  // namespace

TEST_CASE("a layout string reads and writes back") {
  Layout l = parse_layout("E,t*7|t*8|t*8|t*7,H", 30, "--layout");
  REQUIRE(l.size() == 4);
  CHECK(l[0].embedding);
  CHECK(l[0].layers == 7);
  CHECK(l[3].head);
  CHECK(layout_string(l) == "E,t*7|t*8|t*8|t*7,H");
  CHECK(layout_string(parse_layout("E,t,t|t*2|H", 4, "--layout")) == "E,t*2|t*2|H");
}

TEST_CASE("a layout string that cannot be right says why") {
  const auto error = [](const char* text) { return test::error_of([&] { (void)parse_layout(text, 4, "--layout"); }); };
  CHECK(error("E,t*2|t*1,H").find("the stages hold 3 layers, the model has 4") != std::string::npos);
  CHECK(error("E,t*5,H").find("more layers than the model's 4") != std::string::npos);
  CHECK(error("t*4,H").find("the first stage must start with E") != std::string::npos);
  CHECK(error("E,t*4").find("the last stage must end with H") != std::string::npos);
  CHECK(error("E,t*2|H,t*2").find("H (the head) must be the last piece") != std::string::npos);
  CHECK(error("E,t*2||t*2,H").find("stage 1 has an empty piece") != std::string::npos);
  CHECK(error("E,x|t*4,H").find("unknown piece 'x'") != std::string::npos);
  CHECK(error("E,t*0|t*4,H").find("'t*0' needs a whole number") != std::string::npos);
  CHECK(error("E,t*99999999999|t,H").find("needs a whole number") != std::string::npos);
  CHECK(error("E").rfind("--layout 'E': ", 0) == 0);
}

TEST_CASE("balanced layouts minimise the heaviest stage and sum to the model") {
  // Equal layers and free E and H: 8 layers on 4 stages, 2 each.
  CHECK(layout_string(balanced_layout(4, 8, 0, 1, 0)) == "E,t*2|t*2|t*2|t*2,H");
  // A head worth 3 layers: 12 units over 4 stages is 3 each, so the head stands alone.
  CHECK(layout_string(balanced_layout(4, 9, 0, 1, 3)) == "E,t*3|t*3|t*3|H");
  // A head worth 1.5 layers, 10 layers, 3 stages: the only split whose largest stage is 4 is
  // 4 | 4 | 2 + 1.5; 3 | 4 | 3 + 1.5 and 4 | 3 | 3 + 1.5 reach 4.5.
  CHECK(layout_string(balanced_layout(3, 10, 0, 1, 1.5)) == "E,t*4|t*4|t*2,H");
  // Odd layers with no E or H cost: of the two splits with largest stage 4, the one with the
  // lighter first stage.
  CHECK(layout_string(balanced_layout(2, 7, 0, 1, 0)) == "E,t*3|t*4,H");
  for (int stages = 1; stages <= 12; ++stages) {
    Layout l = balanced_layout(stages, 10, 0.3, 1, 2.2);
    CHECK(l.size() == std::size_t(stages));
    CHECK(total_layers(l) == 10);
    CHECK(parse_layout(layout_string(l), 10, "x").size() == l.size());
  }
  CHECK(test::error_of([] { (void)balanced_layout(13, 10, 0, 1, 0); }).find("at most 12 stages") != std::string::npos);
}

TEST_CASE("a tilted balance gives the first stages fewer layers") {
  // 8 equal layers on 4 stages with tilt 1: weights 2, 5/3, 4/3, 1. The smallest largest
  // weighted stage is 10/3: the first stage takes 1 layer (2 would weigh 4), the second 2
  // (3 would weigh 5), the third 2 (3 would weigh 4), the last the remaining 3.
  CHECK(layout_string(balanced_layout(4, 8, 0, 1, 0, 1.0)) == "E,t|t*2|t*2|t*3,H");
  CHECK(layout_string(balanced_layout(4, 8, 0, 1, 0, 0.0)) == "E,t*2|t*2|t*2|t*2,H");
  CHECK(layout_string(balanced_layout(1, 8, 0, 1, 0, 2.0)) == "E,t*8,H");
}

namespace {

// The weighted cost of a layout's heaviest stage, as balanced_layout weighs stage k of S (from
// 1): 1 + tilt·(S - k)/(S - 1).
double heaviest(const Layout& l, double embedding, const std::vector<double>& layers, double head, double tilt) {
  const auto stages = int(l.size());
  double worst = 0;
  std::size_t next = 0;
  for (int k = 1; k <= stages; ++k) {
    const StagePieces& s = l[std::size_t(k - 1)];
    double cost = (s.embedding ? embedding : 0.0) + (s.head ? head : 0.0);
    for (int i = 0; i < s.layers; ++i) cost += layers[next++];
    worst = std::max(worst, cost * (stages == 1 ? 1.0 : 1.0 + tilt * (stages - k) / (stages - 1)));
  }
  return worst;
}

// Every split of the n pieces (E, the layers, H) into `stages` runs of at least one piece: the
// least weighted heaviest stage, by enumeration.
double least_heaviest(int stages, double embedding, const std::vector<double>& layers, double head, double tilt) {
  const int pieces = int(layers.size()) + 2;
  double least = std::numeric_limits<double>::infinity();
  // starts[k]: the first piece of stage k; stage 0 starts at piece 0.
  std::vector<int> starts(std::size_t(stages), 0);
  const std::function<void(int)> place = [&](int k) {
    if (k == stages) {
      Layout l;
      for (int s = 0; s < stages; ++s) {
        const int from = starts[std::size_t(s)];
        const int to = s + 1 < stages ? starts[std::size_t(s + 1)] : pieces;
        l.push_back(StagePieces{from == 0, std::max(0, std::min(to, pieces - 1) - std::max(from, 1)), to == pieces});
      }
      least = std::min(least, heaviest(l, embedding, layers, head, tilt));
      return;
    }
    for (int from = starts[std::size_t(k - 1)] + 1; from <= pieces - (stages - k); ++from) {
      starts[std::size_t(k)] = from;
      place(k + 1);
    }
  };
  place(1);
  return least;
}

}  // namespace

TEST_CASE("balanced layouts reach the least heaviest stage an enumeration of every split finds") {
  // Unequal layers (DeepSeek-V3's dense first layers beside its expert layers) and every tilt
  // the planner tries: the walk along the crossing of the table's two sides must find the
  // optimum the enumeration does, not only on equal layers.
  std::mt19937 random(20261207);
  std::uniform_real_distribution<double> cost(0.1, 3.0);
  for (int trial = 0; trial < 300; ++trial) {
    const int layers = 1 + trial % 9;
    std::vector<double> layer_costs(static_cast<std::size_t>(layers));
    for (double& c : layer_costs) c = trial % 3 == 0 ? 1.0 : cost(random);
    const double embedding = cost(random) * 0.5;
    const double head = cost(random);
    for (int stages = 1; stages <= std::min(6, layers + 2); ++stages) {
      for (double tilt : {0.0, 0.5, 1.0, 2.0}) {
        const Layout l = balanced_layout(stages, embedding, layer_costs, head, tilt);
        REQUIRE(l.size() == std::size_t(stages));
        CHECK(total_layers(l) == layers);
        const double want = least_heaviest(stages, embedding, layer_costs, head, tilt);
        CHECK(heaviest(l, embedding, layer_costs, head, tilt) == doctest::Approx(want).epsilon(1e-12));
      }
    }
  }
}
