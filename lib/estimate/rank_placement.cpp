#include "estimate/rank_placement.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "model/error.hpp"

namespace pipeplan {

namespace {

std::string grid_text(const RankGrid& g) {
  return "tp " + std::to_string(g.tp) + ", cp " + std::to_string(g.cp) + ", pp " + std::to_string(g.pp) + ", dp " +
         std::to_string(g.dp) + ", ep " + std::to_string(g.ep) + ", etp " + std::to_string(g.expert_tp()) + " on " +
         std::to_string(g.gpus_per_node) + "-GPU nodes";
}

// One digit of the mixed-radix rank: `size` values, `stride` apart.
struct Digit {
  long stride = 1;
  long size = 1;
};

// A numbering's digits, innermost first, each the one below it times its size: t, c, d, p (or
// t, c, p, d) for the dense groups; the folded expert digits et, e, ed, then p for the experts'.
struct View {
  std::vector<Digit> digits;
};

enum Place : unsigned char { kT, kC, kD, kP };  // digits of the dense view, by meaning
enum ExpertPlace : unsigned char { kEt, kE, kEd, kEp };

// The dense view: where t, c, d and p sit in the order, as digits indexed by Place.
View dense_view(const RankGrid& g) {
  const long tp = g.tp, cp = g.cp, dp = g.dp, pp = g.pp;
  if (g.order == RankOrder::TpDpPp) return {{{1, tp}, {tp, cp}, {tp * cp, dp}, {tp * cp * dp, pp}}};
  return {{{1, tp}, {tp, cp}, {tp * cp * pp, dp}, {tp * cp, pp}}};
}

// The expert view, indexed by ExpertPlace. Under tp-dp-pp the stage's tp·cp·dp consecutive ranks
// are renumbered etp-ep-edp (Megatron's folding); under tp-pp-dp (cp 1, etp = tp) the experts are
// the inner part of data parallelism, as before folding.
View expert_view(const RankGrid& g) {
  const long etp = g.expert_tp(), ep = g.ep, edp = g.expert_dp(), pp = g.pp;
  if (g.order == RankOrder::TpDpPp) return {{{1, etp}, {etp, ep}, {etp * ep, edp}, {etp * ep * edp, pp}}};
  return {{{1, etp}, {etp * pp, ep}, {etp * pp * ep, edp}, {etp, pp}}};
}

// A kind of group: the view it is numbered in and the digits its members vary.
struct Kind {
  View view;
  std::vector<int> varied;
};

Kind kind_of(const RankGrid& g, RankGroup group) {
  switch (group) {
    case RankGroup::Tensor:
      return {dense_view(g), {kT}};
    case RankGroup::Context:
      return {dense_view(g), {kC}};
    case RankGroup::Data:
      return {dense_view(g), {kD}};
    case RankGroup::DataContext:
      return {dense_view(g), {kC, kD}};
    case RankGroup::Expert:
      return {expert_view(g), {kE}};
    case RankGroup::ExpertData:
      return {expert_view(g), {kEd}};
    case RankGroup::ExpertTensor:
      return {expert_view(g), {kEt}};
  }
  return {dense_view(g), {kT}};
}

// The groups of a kind as arithmetic: the least rank of each group is i + period·j (i < width,
// j < count), and every group spans `span` ranks from its least to its greatest. The digits below
// the lowest varied one fill [0, width); the others kept above it must be consecutive digits (true
// of every kind here), so that they count up in steps of the first one's stride.
struct Family {
  long width = 1, period = 1, count = 1, span = 0;
};

Family family(const Kind& k) {
  std::vector<Digit> digits = k.view.digits;
  std::vector<bool> varied(digits.size(), false);
  for (int v : k.varied) varied[std::size_t(v)] = true;
  std::vector<std::size_t> order(digits.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return digits[a].stride < digits[b].stride; });
  Family f;
  bool below = true;    // still under the lowest varied digit
  bool kept = false;    // a kept digit above it was seen
  bool closed = false;  // a varied digit came after the kept ones
  for (std::size_t i : order) {
    const Digit& d = digits[i];
    if (d.size <= 1) continue;  // varies nothing; strides of the others then strictly increase
    if (varied[i]) {
      if (below) f.width = d.stride;
      below = false;
      f.span += d.stride * (d.size - 1);
      closed = closed || kept;
    } else if (!below) {
      if (closed) throw Error("rank placement: a group kind whose kept digits are not consecutive");
      if (!kept) f.period = d.stride;
      kept = true;
      f.count *= d.size;
    }
  }
  return f;
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

Digit pipeline_digit(const RankGrid& g) {
  return dense_view(g).digits[kP];
}

}  // namespace

std::optional<RankOrder> rank_order_named(std::string_view name) {
  return enum_named(kRankOrders, name);
}

std::string_view rank_order_name(RankOrder order) {
  return enum_name(kRankOrders, order);
}

void check_rank_grid(const RankGrid& g) {
  if (g.tp < 1 || g.cp < 1 || g.pp < 1 || g.dp < 1 || g.ep < 1 || g.etp < 0 || g.gpus_per_node < 1) {
    throw Error("a rank grid needs every size of at least 1; got " + grid_text(g));
  }
  const long stage = long(g.tp) * g.cp * g.dp;
  if (stage % (long(g.expert_tp()) * g.ep) != 0) {
    throw Error("--etp " + std::to_string(g.expert_tp()) + " x --ep " + std::to_string(g.ep) +
                ": must divide the tp x cp x dp = " + std::to_string(stage) +
                " ranks of a pipeline stage, over which the expert groups are folded");
  }
  if (g.order == RankOrder::TpPpDp && g.ep > 1 && (g.cp > 1 || g.expert_tp() != g.tp || g.dp % g.ep != 0)) {
    throw Error(
        "--rank-order tp-pp-dp: expert parallelism is modelled there only inside data parallelism (cp 1, "
        "etp equal to tp, ep dividing dp); Megatron refuses expert parallelism under that mapping. Got " +
        grid_text(g));
  }
}

long rank_of(const RankGrid& g, int t, int c, int d, int p) {
  check_rank_grid(g);
  const View v = dense_view(g);
  return t + v.digits[kC].stride * c + v.digits[kD].stride * d + v.digits[kP].stride * p;
}

long rank_of(const RankGrid& g, int t, int d, int p) {
  return rank_of(g, t, 0, d, p);
}

bool within_node(const RankGrid& g, RankGroup group) {
  check_rank_grid(g);
  const Family f = family(kind_of(g, group));
  return !straddles(0, f.width, f.period, f.count, f.span, g.gpus_per_node);
}

std::vector<long> group_members(const RankGrid& g, RankGroup group, long rank) {
  check_rank_grid(g);
  if (rank < 0 || rank >= g.world()) {
    throw Error("rank " + std::to_string(rank) + ": the job has ranks 0 to " + std::to_string(g.world() - 1));
  }
  const Kind k = kind_of(g, group);
  // The rank with the varied digits at 0, then every combination of their values added back.
  long base = rank;
  for (int v : k.varied) {
    const Digit& d = k.view.digits[std::size_t(v)];
    base -= (rank / d.stride % d.size) * d.stride;
  }
  std::vector<long> members{base};
  for (int v : k.varied) {
    const Digit& d = k.view.digits[std::size_t(v)];
    std::vector<long> grown;
    for (long m : members) {
      for (long i = 0; i < d.size; ++i) grown.push_back(m + i * d.stride);
    }
    members = std::move(grown);
  }
  std::sort(members.begin(), members.end());
  return members;
}

long fewest_members_per_node(const RankGrid& g, RankGroup group) {
  const std::vector<long> members = group_members(g, group, 0);
  long fewest = long(members.size());
  // Members ascend, so a node's members are one run.
  for (std::size_t i = 0; i < members.size();) {
    std::size_t j = i;
    while (j < members.size() && members[j] / g.gpus_per_node == members[i] / g.gpus_per_node) ++j;
    fewest = std::min(fewest, long(j - i));
    i = j;
  }
  return fewest;
}

bool pipeline_crosses_nodes(const RankGrid& g, int device, int other) {
  check_rank_grid(g);
  if (device < 0 || other < 0 || device >= g.pp || other >= g.pp) {
    throw Error("pipeline devices " + std::to_string(device) + " and " + std::to_string(other) + ": a pipeline of " +
                std::to_string(g.pp) + " has devices 0 to " + std::to_string(g.pp - 1));
  }
  // The ranks at the lower device: the digits below p fill [0, stride); those above it step by
  // stride·pp (tp-pp-dp's d), or there are none (tp-dp-pp).
  const Digit k = pipeline_digit(g);
  const long first = std::min(device, other);
  return straddles(k.stride * first, k.stride, k.stride * k.size, g.world() / (k.stride * k.size),
                   k.stride * std::abs(device - other), g.gpus_per_node);
}

bool links_as_fast(const RankGrid& a, const RankGrid& b) {
  if (a.pp != b.pp) return false;
  for (RankGroup group : kRankGroups) {
    if (within_node(b, group) && !within_node(a, group)) return false;
    if (!within_node(a, group) && fewest_members_per_node(a, group) < fewest_members_per_node(b, group)) return false;
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
