#include "estimate/rank_placement.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "model/error.hpp"

namespace pipeplan {

namespace {

void check_grid(const RankGrid& g) {
  if (g.tp < 1 || g.pp < 1 || g.dp < 1 || g.ep < 1 || g.gpus_per_node < 1 || g.dp % g.ep != 0) {
    throw Error("a rank grid needs tp, pp, dp, ep and GPUs per node of at least 1 and ep dividing dp; got tp " +
                std::to_string(g.tp) + ", pp " + std::to_string(g.pp) + ", dp " + std::to_string(g.dp) + ", ep " +
                std::to_string(g.ep) + " on " + std::to_string(g.gpus_per_node) + "-GPU nodes");
  }
}

// One digit of the mixed-radix rank: `size` values, `stride` apart. Every rank is
// inner + stride·i + stride·size·j with inner < stride, i < size and j < world / (stride·size),
// since the digits inside this one fill [0, stride) exactly.
struct Digit {
  long stride = 1;
  long size = 1;
};

// The digits, innermost first: tp, then dp (ep its inner part, ep·edp = dp) and pp, or pp and dp.
Digit digit(const RankGrid& g, RankGroup group) {
  const long tp = g.tp, pp = g.pp, dp = g.dp, ep = g.ep;
  const long dp_stride = g.order == RankOrder::TpDpPp ? tp : tp * pp;
  switch (group) {
    case RankGroup::Tensor:
      return {1, tp};
    case RankGroup::Data:
      return {dp_stride, dp};
    case RankGroup::Expert:
      return {dp_stride, ep};
    case RankGroup::ExpertData:
      return {dp_stride * ep, dp / ep};
  }
  return {1, tp};
}

Digit pipeline_digit(const RankGrid& g) {
  return {g.order == RankOrder::TpDpPp ? long(g.tp) * g.dp : long(g.tp), g.pp};
}

// Whether some x = offset + i + period·j (i < width, j < count) has x and x + span on different
// nodes of `node` ranks. For one j the x run over [lo, lo + width): when that run holds a node's
// last rank, x mod node reaches node - 1; otherwise its largest is (lo + width - 1) mod node.
// The residues of lo repeat every node / gcd(period, node) values of j, so at most `node` of them
// are looked at.
bool straddles(long offset, long width, long period, long count, long span, long node) {
  if (span <= 0) return false;
  if (span >= node) return true;
  const long cycle = node / std::gcd(period % node, node);
  for (long j = 0; j < std::min(count, cycle); ++j) {
    const long lo = offset + period * j;
    const long hi = lo + width - 1;
    if (lo / node != hi / node || hi % node + span >= node) return true;
  }
  return false;
}

}  // namespace

std::optional<RankOrder> rank_order_named(std::string_view name) {
  return enum_named(kRankOrders, name);
}

std::string_view rank_order_name(RankOrder order) {
  return enum_name(kRankOrders, order);
}

long rank_of(const RankGrid& g, int t, int d, int p) {
  check_grid(g);
  return t + digit(g, RankGroup::Data).stride * d + pipeline_digit(g).stride * p;
}

bool within_node(const RankGrid& g, RankGroup group) {
  check_grid(g);
  const Digit k = digit(g, group);
  return !straddles(0, k.stride, k.stride * k.size, g.world() / (k.stride * k.size), k.stride * (k.size - 1),
                    g.gpus_per_node);
}

bool pipeline_crosses_nodes(const RankGrid& g, int device, int other) {
  check_grid(g);
  if (device < 0 || other < 0 || device >= g.pp || other >= g.pp) {
    throw Error("pipeline devices " + std::to_string(device) + " and " + std::to_string(other) + ": a pipeline of " +
                std::to_string(g.pp) + " has devices 0 to " + std::to_string(g.pp - 1));
  }
  const Digit k = pipeline_digit(g);
  const long first = std::min(device, other);
  return straddles(k.stride * first, k.stride, k.stride * k.size, g.world() / (k.stride * k.size),
                   k.stride * std::abs(device - other), g.gpus_per_node);
}

bool links_as_fast(const RankGrid& a, const RankGrid& b) {
  if (a.pp != b.pp) return false;
  for (RankGroup group : {RankGroup::Tensor, RankGroup::Data, RankGroup::Expert, RankGroup::ExpertData}) {
    if (within_node(b, group) && !within_node(a, group)) return false;
  }
  for (int d = 0; d < a.pp; ++d) {
    const int next = (d + 1) % a.pp;
    if (pipeline_crosses_nodes(a, d, next) && !pipeline_crosses_nodes(b, d, next)) return false;
  }
  return true;
}

bool same_links(const RankGrid& a, const RankGrid& b) {
  return links_as_fast(a, b) && links_as_fast(b, a);
}

}  // namespace pipeplan
