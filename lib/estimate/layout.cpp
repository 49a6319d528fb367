#include "estimate/layout.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>

#include "estimate/megatron_layout.hpp"
#include "model/error.hpp"

namespace pipeplan {

namespace {

// The pieces in model order: index 0 is E, 1..layers the layers, layers+1 is H.
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

[[noreturn]] void refuse(std::string_view flag, std::string_view text, const std::string& why) {
  throw Error(std::string(flag) + " '" + std::string(text) + "': " + why +
              " (expected stages separated by '|', pieces by ',': E, t, t*N, H; for example E,t*7|t*8,H)");
}

int layer_count(std::string_view piece, std::string_view flag, std::string_view text) {
  if (piece == "t") return 1;
  if (piece.size() < 3 || piece.substr(0, 2) != "t*") refuse(flag, text, "unknown piece '" + std::string(piece) + "'");
  int n = 0;
  std::string_view digits = piece.substr(2);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size() || n < 1) {
    refuse(flag, text, "'" + std::string(piece) + "' needs a whole number of layers from 1");
  }
  return n;
}

}  // namespace

Layout parse_layout(std::string_view text, int layers, std::string_view flag, int mtp_layers) {
  if (is_megatron_layout(text)) return parse_megatron_layout(text, layers, flag, mtp_layers);
  Layout layout;
  std::vector<std::string_view> stages = split(text, '|');
  long total = 0;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    StagePieces stage;
    std::vector<std::string_view> pieces = split(stages[s], ',');
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      std::string_view piece = trim(pieces[i]);
      if (piece.empty()) refuse(flag, text, "stage " + std::to_string(s) + " has an empty piece");
      if (piece == "E") {
        if (s != 0 || i != 0) refuse(flag, text, "E (the embedding) must be the first piece of the first stage");
        stage.embedding = true;
      } else if (piece == "H") {
        if (s + 1 != stages.size() || i + 1 != pieces.size()) {
          refuse(flag, text, "H (the head) must be the last piece of the last stage");
        }
        stage.head = true;
      } else {
        const int n = layer_count(piece, flag, text);
        total += n;
        if (total > layers)
          refuse(flag, text, "the stages hold more layers than the model's " + std::to_string(layers));
        stage.layers += n;
      }
    }
    layout.push_back(stage);
  }
  if (!layout.front().embedding) refuse(flag, text, "the first stage must start with E (the embedding)");
  if (!layout.back().head) refuse(flag, text, "the last stage must end with H (the head)");
  if (total != layers) {
    refuse(flag, text, "the stages hold " + std::to_string(total) + " layers, the model has " + std::to_string(layers));
  }
  return layout;
}

std::string layout_string(const Layout& layout) {
  std::string text;
  for (std::size_t s = 0; s < layout.size(); ++s) {
    if (s > 0) text += '|';
    std::string stage;
    const auto add = [&stage](const std::string& piece) { stage += (stage.empty() ? "" : ",") + piece; };
    if (layout[s].embedding) add("E");
    if (layout[s].layers == 1) add("t");
    if (layout[s].layers > 1) add("t*" + std::to_string(layout[s].layers));
    if (layout[s].head) add("H");
    text += stage;
  }
  return text;
}

Layout balanced_layout(int stages, int layers, double embedding_cost, double layer_cost, double head_cost,
                       double tilt) {
  return balanced_layout(stages, embedding_cost, std::vector<double>(std::size_t(std::max(0, layers)), layer_cost),
                         head_cost, tilt);
}

Layout balanced_layout(int stages, double embedding_cost, const std::vector<double>& layer_costs, double head_cost,
                       double tilt) {
  const int layers = int(layer_costs.size());
  const int pieces = layers + 2;
  // prefix[i]: the cost of layers 0 .. i-1.
  std::vector<double> prefix(layer_costs.size() + 1, 0.0);
  for (std::size_t i = 0; i < layer_costs.size(); ++i) prefix[i + 1] = prefix[i] + layer_costs[i];
  // Layers all alike are counted by multiplication, so that equal splits tie exactly.
  const bool alike =
      std::adjacent_find(layer_costs.begin(), layer_costs.end(), std::not_equal_to<>()) == layer_costs.end();
  if (stages < 1 || stages > pieces) {
    throw Error(std::to_string(stages) + " stages cannot split the embedding, " + std::to_string(layers) +
                " layers and the head (at most " + std::to_string(pieces) + " stages, one piece each)");
  }
  // The weight of stage k (from 1): the first stage counts 1 + tilt, the last 1.
  const auto weight = [&](int k) { return stages == 1 ? 1.0 : 1.0 + tilt * (stages - k) / (stages - 1); };
  const auto cost = [&](int from, int to) {                                // pieces [from, to)
    const int first = std::max(from, 1), last = std::min(to, layers + 1);  // pieces 1 .. layers are the layers
    const double inner = last <= first ? 0.0
                         : alike       ? (last - first) * layer_costs.front()
                                       : prefix[std::size_t(last - 1)] - prefix[std::size_t(first - 1)];
    return (from == 0 ? embedding_cost : 0.0) + inner + (to == pieces ? head_cost : 0.0);
  };
  // best(k, i): the smallest largest-stage cost of the first i pieces in k stages; cut(k, i)
  // where its last stage starts. One flat table each, indexed through `at`.
  constexpr double kNone = std::numeric_limits<double>::infinity();
  const auto width = static_cast<std::size_t>(pieces) + 1;
  const auto at = [width](int k, int i) { return static_cast<std::size_t>(k) * width + static_cast<std::size_t>(i); };
  std::vector<double> best(static_cast<std::size_t>(stages + 1) * width, kNone);
  std::vector<int> cut(best.size(), 0);
  best[at(0, 0)] = 0.0;
  for (int k = 1; k <= stages; ++k) {
    const double w = weight(k);
    // best(k-1, j) grows with j and cost(j, i) shrinks, so the best cut is where they cross:
    // the first j with best(k-1, j) >= cost(j, i), or the one before it. A longer prefix i only
    // raises cost(j, i), so the crossing never moves back: one pointer walks it for every i
    // (the first such j in [k-1, i-1], i-1 when there is none), S·n steps in all.
    int lo = k - 1;
    for (int i = k; i <= pieces - (stages - k); ++i) {
      while (lo < i - 1 && best[at(k - 1, lo)] < w * cost(lo, i)) ++lo;
      // Ties go to the earlier cut: the later stages take the extra layers, the first ones,
      // which hold the most activations in every 1F1B-like schedule, fewer.
      for (int j : {lo - 1, lo}) {
        if (j < k - 1) continue;
        double value = std::max(best[at(k - 1, j)], w * cost(j, i));
        if (value < best[at(k, i)]) {
          best[at(k, i)] = value;
          cut[at(k, i)] = j;
        }
      }
    }
  }
  Layout layout;
  for (int k = stages, i = pieces; k > 0; i = cut[at(k, i)], --k) {
    const int from = cut[at(k, i)];
    layout.insert(layout.begin(),
                  StagePieces{from == 0, std::max(0, std::min(i, layers + 1) - std::max(from, 1)), i == pieces});
  }
  return layout;
}

}  // namespace pipeplan
