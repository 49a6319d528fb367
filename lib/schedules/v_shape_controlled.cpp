// V-Half and V-Min (Qi, Wan, Amar, Lin, "Pipeline Parallelism with Controllable Memory",
// NeurIPS 2024; rules as in shared/reference/schedules.md). Two chunks per device on the
// V-shaped placement. Each micro-batch repeats a building block of six unit slots per device
// (F, f, B, b, W, w; capitals chunk 0 = stage r, lower case chunk 1 = stage 2P-1-r), placed so
// that the blocks of successive micro-batches interleave without collision; the offsets set the
// activation memory: V-Half about half of ZB-V's, V-Min about a third. Then each W goes to the
// first free slot after its B, and every op moves left to the earliest free slot that keeps its
// dependencies and does not raise its device's peak memory. The device order is the slot order.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "model/dependencies.hpp"
#include "model/placement.hpp"
#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

namespace {

struct Slotted {
  Op op;
  int device;
  long slot;
};

// Unit memory of one chunk's activations: F allocates 1, B frees it (W holds nothing extra in
// this count, as the papers count the activations between F and B).
int delta(OpKind kind) { return kind == OpKind::F ? 1 : kind == OpKind::B ? -1 : 0; }

// Whether an F at position `at` of a device's slot-ordered ops may move to position `to` < at
// without raising the device's peak: the memory after each op it jumps, and before its new
// place, each gain one.
class MoveCheck {
 public:
  MoveCheck() = default;  // no limit: a B or W
  MoveCheck(const std::vector<Slotted*>& ops, std::size_t at) : limited_(true), before_(at + 1, 0), jumped_max_(at + 1, 0) {
    int memory = 0;
    for (const Slotted* s : ops) {
      memory += delta(s->op.kind);
      peak_ = std::max(peak_, memory);
    }
    memory = 0;
    for (std::size_t i = 0; i < at; ++i) {
      before_[i] = memory;
      memory += delta(ops[i]->op.kind);
      after_.push_back(memory);
    }
    before_[at] = memory;
    // jumped_max_[i]: the most memory after any op from i to at - 1.
    jumped_max_[at] = -1;
    for (std::size_t i = at; i-- > 0;) jumped_max_[i] = std::max(jumped_max_[i + 1], after_[i]);
  }

  [[nodiscard]] bool keeps_peak(std::size_t to) const {
    if (!limited_) return true;
    return before_[to] + 1 <= peak_ && jumped_max_[to] + 1 <= peak_;
  }

 private:
  bool limited_ = false;
  int peak_ = 0;
  std::vector<int> before_;      ///< memory before the op at each position up to `at`
  std::vector<int> after_;       ///< memory after each op before `at`
  std::vector<int> jumped_max_;
};

class SlotPlan {
 public:
  SlotPlan(int devices, int microbatches) : p_(devices), m_(microbatches), used_(static_cast<std::size_t>(devices)) {}

  void place(OpKind kind, int stage, int microbatch, long slot) {
    int device = stage < p_ ? stage : 2 * p_ - 1 - stage;
    ops_.push_back({{kind, stage, microbatch}, device, slot});
    used_[static_cast<std::size_t>(device)].insert(slot);
  }

  // Each W at the first free slot after its B.
  void place_weights() {
    std::vector<Slotted> backwards;
    for (const Slotted& s : ops_) {
      if (s.op.kind == OpKind::B) backwards.push_back(s);
    }
    std::sort(backwards.begin(), backwards.end(), [](const Slotted& a, const Slotted& b) { return a.slot < b.slot; });
    for (const Slotted& b : backwards) {
      auto& used = used_[static_cast<std::size_t>(b.device)];
      long slot = b.slot + 1;
      while (used.count(slot) != 0) ++slot;
      place(OpKind::W, b.op.stage, b.op.microbatch, slot);
    }
  }

  // Every op, in slot order, to the earliest free slot after its inputs that keeps the peak.
  void compact() {
    std::sort(ops_.begin(), ops_.end(), [](const Slotted& a, const Slotted& b) {
      return a.slot != b.slot ? a.slot < b.slot : a.device < b.device;
    });
    // Each device's ops in slot order, kept sorted as ops move, so that a move is checked
    // against the device's memory in one pass instead of a sort per candidate slot.
    std::vector<std::vector<Slotted*>> by_device(static_cast<std::size_t>(p_));
    for (Slotted& s : ops_) by_device[static_cast<std::size_t>(s.device)].push_back(&s);
    for (Slotted& s : ops_) {
      long ready = 0;
      for (const Dependency& dep : dependencies_of(s.op, 2 * p_)) ready = std::max(ready, end_of(dep) + 1);
      auto& used = used_[static_cast<std::size_t>(s.device)];
      auto& mine = by_device[static_cast<std::size_t>(s.device)];
      const auto at = static_cast<std::size_t>(
          std::find(mine.begin(), mine.end(), &s) - mine.begin());
      // Moving a B or W earlier frees memory sooner or changes nothing: only an F can raise the
      // peak, by one over the ops it jumps and at its new place.
      const MoveCheck check = s.op.kind == OpKind::F ? MoveCheck(mine, at) : MoveCheck();
      for (long slot = ready; slot < s.slot; ++slot) {
        if (used.count(slot) != 0) continue;
        auto to = static_cast<std::size_t>(
            std::lower_bound(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(at), slot,
                             [](const Slotted* o, long value) { return o->slot < value; }) -
            mine.begin());
        if (!check.keeps_peak(to)) continue;
        used.erase(s.slot);
        used.insert(slot);
        s.slot = slot;
        std::rotate(mine.begin() + static_cast<std::ptrdiff_t>(to), mine.begin() + static_cast<std::ptrdiff_t>(at),
                    mine.begin() + static_cast<std::ptrdiff_t>(at) + 1);
        break;
      }
      final_slot_[key(s.op)] = s.slot;
    }
  }

  void write(Schedule& schedule) const {
    std::vector<Slotted> sorted = ops_;
    std::sort(sorted.begin(), sorted.end(), [](const Slotted& a, const Slotted& b) { return a.slot < b.slot; });
    for (const Slotted& s : sorted) {
      if (s.op.microbatch < m_) schedule.order[static_cast<std::size_t>(s.device)].push_back(s.op);
    }
  }

 private:
  static long key(const Op& op) {
    return (static_cast<long>(op.microbatch) * 4096 + op.stage) * kOpKindCount + static_cast<long>(op.kind);
  }

  long end_of(const Dependency& dep) const {
    for (OpKind k : {OpKind::F, OpKind::B}) {
      if (!satisfies(k, dep.need)) continue;
      auto it = final_slot_.find(key({k, dep.stage, dep.microbatch}));
      if (it != final_slot_.end()) return it->second;
    }
    return -1;
  }

  int p_;
  int m_;
  std::vector<Slotted> ops_;
  std::vector<std::set<long>> used_;
  std::map<long, long> final_slot_;
};

// The building block: where stage r's forward (chunk 0) and its mirror's forward (chunk 1), and
// the two backwards, sit for micro-batch 0; micro-batch k adds 6k.
struct Block {
  long forward, forward_mirror, backward_mirror, backward;
};

Schedule controlled(std::string_view name, const GenerateRequest& r, Block (*block)(int p, int device)) {
  check_request(name, r, {1, "1", 2, 2});
  const int p = r.devices;
  Schedule s = empty_schedule(name, r, vee_placement(p));
  SlotPlan plan(p, r.microbatches);
  for (int k = 0; k < r.microbatches; ++k) {
    for (int d = 0; d < p; ++d) {
      Block b = block(p, d);
      const int mirror = 2 * p - 1 - d;
      plan.place(OpKind::F, d, k, b.forward + 6L * k);
      plan.place(OpKind::F, mirror, k, b.forward_mirror + 6L * k);
      plan.place(OpKind::B, mirror, k, b.backward_mirror + 6L * k);
      plan.place(OpKind::B, d, k, b.backward + 6L * k);
    }
  }
  plan.place_weights();
  plan.compact();
  plan.write(s);
  return s;
}

}  // namespace

Schedule generate_v_half(const GenerateRequest& request) {
  return controlled("v-half", request, [](int p, int i) {
    const long d = p % 2 == 0 ? 3 : 0;
    return Block{2L * i, 3L * p - 2 - i, 3L * p + d + 2L * i - 1, 6L * p + d - 2 - i};
  });
}

Schedule generate_v_min(const GenerateRequest& request) {
  return controlled("v-min", request, [](int p, int i) {
    const long d = p % 3 == 0 ? 2 : 0;
    return Block{static_cast<long>(i), 2L * p - 1 - i, 2L * p + d + i, 4L * p + d - 1 - i};
  });
}

}  // namespace pipeplan
