// V-Half and V-Min (Qi, Wan, Amar, Lin, "Pipeline Parallelism with Controllable Memory",
// NeurIPS 2024; rules in docs/schedules.md, "V-Half and V-Min"). Two chunks per device on the
// V-shaped placement. Each micro-batch repeats a building block of six unit slots per device
// (F, f, B, b, W, w; capitals chunk 0 = stage r, lower case chunk 1 = stage 2P-1-r), placed so
// that the blocks of successive micro-batches interleave without collision; the offsets set the
// activation memory: V-Half about half of ZB-V's, V-Min about a third. Then each W goes to the
// first free slot after its B, and every op moves left to the earliest free slot that keeps its
// dependencies and does not raise its device's peak memory. The device order is the slot order.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "model/dependencies.hpp"
#include "model/placement.hpp"
#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"
#include "schedules/range_max_tree.hpp"

namespace pipeplan {

namespace {

struct Slotted {
  Op op;
  int device;
  long slot;
};

// Unit memory of one chunk's activations: F allocates 1, B frees it (W holds nothing extra in
// this count, as the papers count the activations between F and B).
int delta(OpKind kind) {
  return kind == OpKind::F ? 1 : kind == OpKind::B ? -1 : 0;
}

class SlotPlan {
 public:
  SlotPlan(int devices, int microbatches) : p_(devices), m_(microbatches) {}

  void place(OpKind kind, int stage, int microbatch, long slot) {
    int device = stage < p_ ? stage : 2 * p_ - 1 - stage;
    ops_.push_back({{kind, stage, microbatch}, device, slot});
  }

  // Each W at the first free slot after its B. A device's W land at most one slot per W, 2M,
  // beyond its last op, which bounds the slots from here on.
  void place_weights() {
    std::vector<Slotted> backwards;
    slots_ = 1;
    for (const Slotted& s : ops_) {
      if (s.op.kind == OpKind::B) backwards.push_back(s);
      slots_ = std::max(slots_, s.slot + 1);
    }
    slots_ += 2L * m_ + 1;
    // Free: 1 from slot 0, then -1 at each used slot and +1 after it.
    std::vector<std::vector<std::pair<std::size_t, int>>> steps(static_cast<std::size_t>(p_), {{0, 1}});
    for (const Slotted& s : ops_) {
      const auto slot = static_cast<std::size_t>(s.slot);
      steps[static_cast<std::size_t>(s.device)].insert(steps[static_cast<std::size_t>(s.device)].end(),
                                                       {{slot, -1}, {slot + 1, 1}});
    }
    for (auto& device : steps) {
      std::sort(device.begin(), device.end());
      free_.emplace_back(static_cast<std::size_t>(slots_), device);
    }
    std::sort(backwards.begin(), backwards.end(), [](const Slotted& a, const Slotted& b) { return a.slot < b.slot; });
    for (const Slotted& b : backwards) {
      const auto slot = free_[static_cast<std::size_t>(b.device)].first_at_least(static_cast<std::size_t>(b.slot) + 1,
                                                                                 static_cast<std::size_t>(slots_), 1);
      place(OpKind::W, b.op.stage, b.op.microbatch, static_cast<long>(slot.value()));
      take(b.device, ops_.back().slot);
    }
  }

  // Every op, in slot order, to the earliest free slot after its inputs that keeps the peak.
  // Each device's memory over its slots, and which of its slots are free, live in segment trees,
  // so one op's move costs O(log n), not a pass over the device's ops.
  void compact() {
    std::sort(ops_.begin(), ops_.end(), [](const Slotted& a, const Slotted& b) {
      return a.slot != b.slot ? a.slot < b.slot : a.device < b.device;
    });
    // Each device's memory at each slot: an op's change holds from its slot on.
    const auto slots = static_cast<std::size_t>(slots_);
    std::vector<std::vector<std::pair<std::size_t, int>>> steps(static_cast<std::size_t>(p_));
    for (const Slotted& s : ops_) {  // already in slot order
      if (delta(s.op.kind) != 0)
        steps[static_cast<std::size_t>(s.device)].emplace_back(static_cast<std::size_t>(s.slot), delta(s.op.kind));
    }
    std::vector<RangeMaxTree> memory;
    for (const auto& device : steps) memory.emplace_back(slots, device);
    final_slot_.assign(2 * static_cast<std::size_t>(2 * p_) * static_cast<std::size_t>(m_), -1);
    for (Slotted& s : ops_) {
      long earliest = 0;
      for (const Dependency& dep : dependencies_of(s.op, 2 * p_)) earliest = std::max(earliest, end_of(dep) + 1);
      const auto d = static_cast<std::size_t>(s.device);
      // Moving a B or W earlier frees memory sooner or changes nothing: only an F can raise the
      // peak, by one at every slot it jumps. So it may not jump a slot already at the peak.
      if (s.op.kind == OpKind::F && earliest < s.slot) {
        const int peak = std::max(0, memory[d].max());
        const auto full =
            memory[d].last_at_least(static_cast<std::size_t>(earliest), static_cast<std::size_t>(s.slot), peak);
        if (full) earliest = static_cast<long>(*full) + 1;
      }
      const auto to = free_[d].first_at_least(static_cast<std::size_t>(earliest), static_cast<std::size_t>(s.slot), 1);
      if (earliest < s.slot && to) {
        const auto from = static_cast<std::size_t>(s.slot);
        free_[d].add(*to, *to + 1, -1);
        free_[d].add(from, from + 1, 1);
        if (delta(s.op.kind) != 0) memory[d].add(*to, from, delta(s.op.kind));  // a W changes no memory
        s.slot = static_cast<long>(*to);
      }
      if (s.op.kind == OpKind::F || s.op.kind == OpKind::B)
        final_slot_[index(s.op.kind, s.op.stage, s.op.microbatch)] = s.slot;
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
  void take(int device, long slot) {
    free_[static_cast<std::size_t>(device)].add(static_cast<std::size_t>(slot), static_cast<std::size_t>(slot) + 1, -1);
  }

  [[nodiscard]] std::size_t index(OpKind kind, int stage, int microbatch) const {
    const std::size_t row = kind == OpKind::F ? 0 : 1;
    return (row * static_cast<std::size_t>(2 * p_) + static_cast<std::size_t>(stage)) * static_cast<std::size_t>(m_) +
           static_cast<std::size_t>(microbatch);
  }

  // The final slot of the op that satisfies `dep`; -1 while it has not been placed.
  [[nodiscard]] long end_of(const Dependency& dep) const {
    for (OpKind k : {OpKind::F, OpKind::B}) {
      if (satisfies(k, dep.need)) return final_slot_[index(k, dep.stage, dep.microbatch)];
    }
    return -1;
  }

  int p_;
  int m_;
  std::vector<Slotted> ops_;
  long slots_ = 0;                  // slots 0 .. slots_-1 can hold an op
  std::vector<RangeMaxTree> free_;  // per device: 1 at a free slot, 0 at a used one
  std::vector<long> final_slot_;    // F and B ops: their slot once compacted, else -1
};

// The building block: where stage r's forward (chunk 0) and its mirror's forward (chunk 1), and
// the two backwards, sit for micro-batch 0; micro-batch k adds 6k.
struct Block {
  long forward, forward_mirror, backward_mirror, backward;
};

Schedule controlled(std::string_view name, const GenerateRequest& r, Block (*block)(int p, int device)) {
  check_request(name, r);
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
