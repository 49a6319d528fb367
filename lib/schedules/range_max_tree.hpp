#pragma once
// A segment tree over positions 0 .. n-1 holding one integer each: add a number to a range,
// read the largest value, and find the first or last position of a range whose value reaches
// a bound, each in O(log n). V-Half and V-Min keep each device's memory over its slots in one,
// and which of its slots are free in another, so that moving an op left and checking that the
// move keeps the peak stay logarithmic.
//
// Nodes are made only where an add splits a range, so the memory follows the number of adds,
// not n: a device's slots span about 6(P+M), of which it holds about 6M, and P devices of dense
// trees would take O(P^2) memory at large P.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace pipeplan {

class RangeMaxTree {
 public:
  /// n positions (n >= 1), each holding `value`.
  explicit RangeMaxTree(std::size_t n, int value = 0) : n_(n) { nodes_.push_back({value, value, 0, 0}); }

  /// n positions holding a step function: position t holds the sum of the deltas of the steps
  /// at or before t. `steps` are (position, delta), sorted by position. Makes O(k log(n/k))
  /// nodes for k steps, none where the function is flat.
  RangeMaxTree(std::size_t n, const std::vector<std::pair<std::size_t, int>>& steps) : n_(n) {
    nodes_.push_back({0, 0, 0, 0});
    int value = 0;
    std::size_t i = 0;
    for (; i < steps.size() && steps[i].first == 0; ++i) value += steps[i].second;
    build(0, 0, n_, value, steps, i, steps.size());
  }

  /// Adds `delta` to every position in [lo, hi).
  void add(std::size_t lo, std::size_t hi, int delta) {
    if (lo < hi) add(0, 0, n_, lo, hi, delta);
  }

  /// The largest value of all.
  [[nodiscard]] int max() const { return nodes_[0].max; }

  /// The first position in [lo, hi) whose value is at least `bound`; nullopt when none is.
  [[nodiscard]] std::optional<std::size_t> first_at_least(std::size_t lo, std::size_t hi, int bound) const {
    return lo < hi ? find(0, 0, n_, lo, hi, bound, false) : std::nullopt;
  }

  /// The last position in [lo, hi) whose value is at least `bound`; nullopt when none is.
  [[nodiscard]] std::optional<std::size_t> last_at_least(std::size_t lo, std::size_t hi, int bound) const {
    return lo < hi ? find(0, 0, n_, lo, hi, bound, true) : std::nullopt;
  }

 private:
  // A node's max includes its own add but not its ancestors'. Child index 0 (the root, never a
  // child) means no child yet: every position below holds 0 plus the adds above it.
  struct Node {
    int max;
    int add;
    std::uint32_t left;
    std::uint32_t right;
  };

  // Node `node` over [lo, hi), which holds `value` at lo; steps[i, j) are those inside (lo, hi).
  void build(std::size_t node, std::size_t lo, std::size_t hi, int value,
             const std::vector<std::pair<std::size_t, int>>& steps, std::size_t i, std::size_t j) {
    if (i == j) {  // flat: no children
      nodes_[node] = {value, value, 0, 0};
      return;
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    std::size_t split = i;  // the first step at or after mid
    int at_mid = value;
    for (; split < j && steps[split].first < mid; ++split) at_mid += steps[split].second;
    std::size_t after = split;  // the first step after mid
    for (; after < j && steps[after].first == mid; ++after) at_mid += steps[after].second;
    const auto left = static_cast<std::uint32_t>(nodes_.size());
    const auto right = left + 1;
    nodes_.push_back({0, 0, 0, 0});
    nodes_.push_back({0, 0, 0, 0});
    build(left, lo, mid, value, steps, i, split);
    build(right, mid, hi, at_mid, steps, after, j);
    nodes_[node] = {std::max(nodes_[left].max, nodes_[right].max), 0, left, right};
  }

  [[nodiscard]] int child_max(std::size_t child) const { return child == 0 ? 0 : nodes_[child].max; }

  std::uint32_t made(std::uint32_t child) {
    if (child != 0) return child;
    nodes_.push_back({0, 0, 0, 0});
    return static_cast<std::uint32_t>(nodes_.size() - 1);
  }

  void add(std::size_t node, std::size_t lo, std::size_t hi, std::size_t from, std::size_t to, int delta) {
    if (to <= lo || hi <= from) return;
    if (from <= lo && hi <= to) {
      nodes_[node].max += delta;
      nodes_[node].add += delta;
      return;
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    if (from < mid) {
      const std::uint32_t left = made(nodes_[node].left);  // may move nodes_: index again below
      nodes_[node].left = left;
      add(left, lo, mid, from, to, delta);
    }
    if (mid < to) {
      const std::uint32_t right = made(nodes_[node].right);
      nodes_[node].right = right;
      add(right, mid, hi, from, to, delta);
    }
    Node& n = nodes_[node];
    n.max = std::max(child_max(n.left), child_max(n.right)) + n.add;
  }

  // `bound` is relative to this node: its ancestors' adds are already taken off it.
  [[nodiscard]] std::optional<std::size_t> find(std::size_t node, std::size_t lo, std::size_t hi, std::size_t from,
                                                std::size_t to, int bound, bool last) const {
    if (to <= lo || hi <= from) return std::nullopt;
    const Node& n = nodes_[node];
    if (n.max < bound) return std::nullopt;
    if (hi - lo == 1) return lo;
    const std::size_t mid = lo + (hi - lo) / 2;
    const int inner = bound - n.add;
    if (last) {
      if (auto found = find_below(n.right, mid, hi, from, to, inner, last)) return found;
      return find_below(n.left, lo, mid, from, to, inner, last);
    }
    if (auto found = find_below(n.left, lo, mid, from, to, inner, last)) return found;
    return find_below(n.right, mid, hi, from, to, inner, last);
  }

  // find() in a child, which may be missing: then every position below holds 0.
  [[nodiscard]] std::optional<std::size_t> find_below(std::size_t child, std::size_t lo, std::size_t hi,
                                                      std::size_t from, std::size_t to, int bound, bool last) const {
    if (child != 0) return find(child, lo, hi, from, to, bound, last);
    if (to <= lo || hi <= from || 0 < bound) return std::nullopt;
    return last ? std::min(hi, to) - 1 : std::max(lo, from);
  }

  std::size_t n_;
  std::vector<Node> nodes_;
};

}  // namespace pipeplan
