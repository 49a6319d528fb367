#include "model/structure.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "model/dependencies.hpp"
#include "model/large_allocator.hpp"

namespace pipeplan {

namespace {

bool in_range(const Schedule& s, const Op& op) {
  auto ok = [&s](int stage, int microbatch) {
    return stage >= 0 && stage < s.stages && microbatch >= 0 && microbatch < s.microbatches;
  };
  return ok(op.stage, op.microbatch) && (op.kind != OpKind::FB || ok(op.overlap_stage, op.overlap_microbatch));
}

std::string at(int device, std::size_t index) {
  return "order[" + std::to_string(device) + "][" + std::to_string(index) + "]";
}

std::vector<Problem> header_problems(const Schedule& s) {
  std::vector<Problem> out;
  auto add = [&out](std::string message) { out.push_back({ProblemKind::Header, -1, std::move(message)}); };
  if (s.devices < 1) add("devices is " + std::to_string(s.devices) + ": expected at least 1");
  if (s.stages < 1) add("stages is " + std::to_string(s.stages) + ": expected at least 1");
  if (s.microbatches < 1) {
    add("microbatches is " + std::to_string(s.microbatches) + ": expected at least 1");
  }
  if (std::cmp_not_equal(s.placement.size(), s.stages)) {
    add("placement lists " + std::to_string(s.placement.size()) + " devices: expected one per stage (" +
        std::to_string(s.stages) + ")");
  }
  for (std::size_t i = 0; i < s.placement.size(); ++i) {
    if (s.placement[i] < 0 || s.placement[i] >= s.devices) {
      add("placement[" + std::to_string(i) + "] is device " + std::to_string(s.placement[i]) + ": expected 0 to " +
          std::to_string(s.devices - 1));
    }
  }
  if (std::cmp_not_equal(s.order.size(), s.devices)) {
    add("order has " + std::to_string(s.order.size()) + " device lists: expected " + std::to_string(s.devices));
  }
  return out;
}

// Where each op of one kind was first seen, and how often (12 bytes: schedules run to millions).
struct Seen {
  std::uint32_t count = 0;
  std::int32_t device = -1;
  std::uint32_t index = 0;  // a device's list holds fewer than kMaxOps < 2^32 ops
};

class OpCensus {
 public:
  OpCensus(int stages, int microbatches)
      : microbatches_(microbatches),
        seen_(static_cast<std::size_t>(kOpKindCount) * static_cast<std::size_t>(stages) *
              static_cast<std::size_t>(microbatches)) {}

  Seen& operator()(OpKind kind, int stage, int microbatch) {
    std::size_t slot = static_cast<std::size_t>(stage) * static_cast<std::size_t>(microbatches_) +
                       static_cast<std::size_t>(microbatch);
    return seen_[slot * kOpKindCount + static_cast<std::size_t>(kind)];
  }

 private:
  int microbatches_;
  LargeVector<Seen> seen_;  // 60 bytes per stage and micro-batch
};

// Missing ops are named one by one up to this many, then counted: a header may ask for far
// more ops than its file holds (a 4 KiB file naming micro-batch 777773 of four stages lacks
// six million), and a problem each took gigabytes.
constexpr long long kMissingListed = 1000;

// The most stage and micro-batch slots counted for a file with fewer ops than they need: 240 MB.
constexpr long long kCensusSlots = 4'000'000;

void count_problems(const Schedule& s, OpCensus& census, std::vector<Problem>& out) {
  auto op_name = [](OpKind k, int stage, int m) { return describe(Op{k, stage, m}); };
  long long missing_ops = 0;
  for (int stage = 0; stage < s.stages; ++stage) {
    int device = s.placement[static_cast<std::size_t>(stage)];
    std::string holder = "device " + std::to_string(device) + " holds stage " + std::to_string(stage);
    for (int m = 0; m < s.microbatches; ++m) {
      const Seen& f = census(OpKind::F, stage, m);
      const Seen& b = census(OpKind::B, stage, m);
      const Seen& w = census(OpKind::W, stage, m);
      const Seen& bw = census(OpKind::BW, stage, m);
      auto missing = [&](const auto& what) {
        if (++missing_ops > kMissingListed) return;
        out.push_back({ProblemKind::Missing, device, "missing " + what() + ": " + holder + " but never runs it"});
      };
      auto repeated = [&](OpKind k, const Seen& seen) {
        if (seen.count > 1) {
          out.push_back({ProblemKind::Repeated, seen.device,
                         op_name(k, stage, m) + " appears " + std::to_string(seen.count) + " times (first at " +
                             at(seen.device, seen.index) + "): expected once"});
        }
      };
      if (f.count == 0) missing([&] { return op_name(OpKind::F, stage, m); });
      repeated(OpKind::F, f);
      if (bw.count > 0 && (b.count > 0 || w.count > 0)) {
        out.push_back({ProblemKind::MixedBackward, device,
                       op_name(OpKind::BW, stage, m) + " and a split " +
                           (b.count > 0 ? op_name(OpKind::B, stage, m) : op_name(OpKind::W, stage, m)) +
                           " both appear: the backward is either fused (BW) or split (B then W)"});
        continue;
      }
      if (bw.count > 0) {
        repeated(OpKind::BW, bw);
        continue;
      }
      if (b.count == 0) missing([&] { return "B(s" + std::to_string(stage) + ",m" + std::to_string(m) + ") or BW"; });
      repeated(OpKind::B, b);
      if (b.count > 0 && w.count == 0) missing([&] { return op_name(OpKind::W, stage, m); });
      repeated(OpKind::W, w);
    }
  }
  if (missing_ops > kMissingListed) {
    out.push_back({ProblemKind::Missing, -1,
                   "and " + std::to_string(missing_ops - kMissingListed) + " more missing ops (" +
                       std::to_string(missing_ops) + " in all, the first " + std::to_string(kMissingListed) +
                       " listed): the file runs far fewer ops than its " + std::to_string(s.stages) + " stages and " +
                       std::to_string(s.microbatches) + " micro-batches need"});
  }
}

// The op on `device` that satisfies `dep`, when it exists exactly once there.
const Seen* unique_producer(OpCensus& census, const Dependency& dep, int device) {
  for (OpKind k : {OpKind::F, OpKind::B, OpKind::BW}) {
    if (!satisfies(k, dep.need)) continue;
    const Seen& seen = census(k, dep.stage, dep.microbatch);
    if (seen.count == 1 && seen.device == device) return &seen;
  }
  return nullptr;
}

void order_problems(const Schedule& s, OpCensus& census, std::vector<Problem>& out) {
  for (int d = 0; d < s.devices; ++d) {
    const auto& ops = s.order[static_cast<std::size_t>(d)];
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      if (!in_range(s, op)) continue;
      for (const Dependency& dep : dependencies_of(op, s.stages)) {
        const Seen* producer = unique_producer(census, dep, d);
        if (producer != nullptr && producer->index > i) {
          out.push_back({ProblemKind::Misordered, d,
                         at(d, i) + " " + describe(op) + " comes before " + at(d, producer->index) + " " +
                             describe(dep) + ", which it needs"});
        }
      }
    }
  }
}

}  // namespace

std::vector<Problem> find_structure_problems(const Schedule& s) {
  std::vector<Problem> out = header_problems(s);
  if (!out.empty()) return out;

  // Every stage and micro-batch needs at least an F and a backward. A file holding far fewer ops
  // than that is incomplete whatever they are, and a census of every slot (60 bytes each) would
  // take memory out of proportion to it: a few ops naming micro-batch 10^6 of 60 stages asked for
  // 3.6 GB. Past kCensusSlots, such a file gets one problem instead of a check op by op.
  const long long slots = static_cast<long long>(s.stages) * s.microbatches;
  if (slots > kCensusSlots && static_cast<long long>(s.op_count()) < 2 * slots) {
    out.push_back({ProblemKind::Missing, -1,
                   "the file holds " + std::to_string(s.op_count()) + " ops where its " + std::to_string(s.stages) +
                       " stages and " + std::to_string(s.microbatches) + " micro-batches need at least " +
                       std::to_string(2 * slots) +
                       " (an F and a backward for each): too few to check one by one, so none is named"});
    return out;
  }

  OpCensus census(s.stages, s.microbatches);
  for (int d = 0; d < s.devices; ++d) {
    const auto& ops = s.order[static_cast<std::size_t>(d)];
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      if (!in_range(s, op)) {
        out.push_back({ProblemKind::OutOfRange, d,
                       at(d, i) + " " + describe(op) + " is out of range: expected stage 0 to " +
                           std::to_string(s.stages - 1) + " and micro-batch 0 to " +
                           std::to_string(s.microbatches - 1)});
        continue;
      }
      // An FB counts as its forward and its fused backward, each of which must be here.
      const std::array<Op, 2> parts = {op.kind == OpKind::FB ? op.forward_part() : op, op.backward_part()};
      for (std::size_t k = 0; k < (op.kind == OpKind::FB ? 2U : 1U); ++k) {
        const Op& part = parts[k];
        int holder = s.placement[static_cast<std::size_t>(part.stage)];
        if (holder != d) {
          out.push_back({ProblemKind::WrongDevice, d,
                         at(d, i) + " " + describe(op) + " is on device " + std::to_string(d) + ", but stage " +
                             std::to_string(part.stage) + " lives on device " + std::to_string(holder)});
        }
        Seen& seen = census(part.kind, part.stage, part.microbatch);
        if (seen.count++ == 0) {
          seen.device = d;
          seen.index = static_cast<std::uint32_t>(i);
        }
      }
    }
  }
  count_problems(s, census, out);
  order_problems(s, census, out);
  return out;
}

bool allows_timing(const std::vector<Problem>& problems) {
  return std::all_of(problems.begin(), problems.end(),
                     [](const Problem& p) { return p.kind == ProblemKind::Misordered; });
}

}  // namespace pipeplan
