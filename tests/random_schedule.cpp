#include "random_schedule.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>

#include "model/dependencies.hpp"
#include "model/placement.hpp"

namespace pipeplan::test {

namespace {

using Slot = std::pair<int, int>;  // stage, micro-batch

struct HandOut {
  int devices = 0;
  int microbatches = 0;
  std::vector<int> placement;
  std::set<Slot> split;  // these get a split backward
  std::set<Slot> alone;  // these never become part of an FB
};

// The ops handed out in a random order in which every op comes after what it needs.
Schedule hand_out(std::mt19937& random, const HandOut& h) {
  Schedule s;
  s.name = "random";
  s.devices = h.devices;
  s.stages = static_cast<int>(h.placement.size());
  s.microbatches = h.microbatches;
  s.placement = h.placement;
  s.order.resize(static_cast<std::size_t>(h.devices));
  std::vector<Op> pending;
  for (int st = 0; st < s.stages; ++st) {
    for (int mb = 0; mb < h.microbatches; ++mb) {
      pending.push_back({OpKind::F, st, mb});
      if (!h.split.contains({st, mb}) && random() % 2 == 0) {
        pending.push_back({OpKind::BW, st, mb});
      } else {
        pending.push_back({OpKind::B, st, mb});
        pending.push_back({OpKind::W, st, mb});
      }
    }
  }
  std::vector<Op> done;
  auto is_done = [&](const Dependency& dep) {
    return std::any_of(done.begin(), done.end(), [&](const Op& op) {
      return op.stage == dep.stage && op.microbatch == dep.microbatch && satisfies(op.kind, dep.need);
    });
  };
  auto device_of = [&s](const Op& op) { return s.placement[static_cast<std::size_t>(op.stage)]; };
  while (!pending.empty()) {
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      bool ok = true;
      for (const Dependency& dep : dependencies_of(pending[i], s.stages)) ok = ok && is_done(dep);
      if (ok) ready.push_back(i);
    }
    std::size_t pick = ready[random() % ready.size()];
    const Op op = pending[pick];
    // Now and then a ready forward runs overlapped with a ready fused backward of its device.
    std::size_t partner = pending.size();
    if (op.kind == OpKind::F && !h.alone.contains({op.stage, op.microbatch}) && random() % 2 == 0) {
      for (std::size_t i : ready) {
        const Op& other = pending[i];
        if (other.kind == OpKind::BW && device_of(other) == device_of(op) &&
            !h.alone.contains({other.stage, other.microbatch})) {
          partner = i;
        }
      }
    }
    auto& list = s.order[static_cast<std::size_t>(device_of(op))];
    if (partner < pending.size()) {
      const Op backward = pending[partner];
      list.push_back(overlapped(op.stage, op.microbatch, backward.stage, backward.microbatch));
      done.push_back(op);
      done.push_back(backward);
      pending.erase(pending.begin() + static_cast<long>(std::max(pick, partner)));
      pending.erase(pending.begin() + static_cast<long>(std::min(pick, partner)));
      continue;
    }
    list.push_back(op);
    done.push_back(op);
    pending.erase(pending.begin() + static_cast<long>(pick));
  }
  return s;
}

std::vector<int> any_placement(std::mt19937& random, int devices, int stages) {
  std::vector<int> placement;
  for (int st = 0; st < stages; ++st) placement.push_back(static_cast<int>(random() % static_cast<unsigned>(devices)));
  return placement;
}

void move_to_front(std::vector<Op>& list, const Op& op) {
  auto it = std::find(list.begin(), list.end(), op);
  std::rotate(list.begin(), it, it + 1);
}

}  // namespace

Schedule random_schedule(std::mt19937& random, int devices, int chunks, int microbatches) {
  HandOut h{devices, microbatches, {}, {}, {}};
  switch (random() % 3) {
    case 0:
      h.placement = loop_placement(devices, chunks);
      break;
    case 1:
      h.placement = chunks == 2 ? vee_placement(devices) : loop_placement(devices, chunks);
      break;
    default:
      h.placement = any_placement(random, devices, devices * chunks);
  }
  return hand_out(random, h);
}

PlantedDeadlock random_deadlock(std::mt19937& random, int microbatches) {
  const int p = 2 + static_cast<int>(random() % 4);
  const int k = 2 + static_cast<int>(random() % static_cast<unsigned>(p - 1));  // 2 .. p devices on the cycle
  std::vector<int> devices(static_cast<std::size_t>(p));
  std::iota(devices.begin(), devices.end(), 0);
  std::shuffle(devices.begin(), devices.end(), random);
  const std::vector<int> c(devices.begin(), devices.begin() + k);
  const int extra = 1 + static_cast<int>(random() % 3);
  const int stages = k + 1 + extra;
  const int t = static_cast<int>(random() % static_cast<unsigned>(stages - k));  // stages t .. t+k planted
  const int m = static_cast<int>(random() % static_cast<unsigned>(microbatches));
  HandOut h{p, microbatches, any_placement(random, p, stages), {}, {}};
  for (int i = 0; i <= k; ++i) {
    h.placement[static_cast<std::size_t>(t + i)] = c[static_cast<std::size_t>(i % k)];
    h.alone.insert({t + i, m});
  }
  PlantedDeadlock out;
  Slot self{-1, -1};
  if (k < p && random() % 3 != 0) {
    out.self_waiting = devices[static_cast<std::size_t>(k)];
    self = {t + k + 1 < stages ? t + k + 1 : t - 1, static_cast<int>(random() % static_cast<unsigned>(microbatches))};
    h.placement[static_cast<std::size_t>(self.first)] = out.self_waiting;
    h.split.insert(self);
  }
  out.schedule = hand_out(random, h);
  auto list = [&out](int device) -> std::vector<Op>& { return out.schedule.order[static_cast<std::size_t>(device)]; };
  move_to_front(list(c[0]), {OpKind::F, t + k, m});
  for (int i = 1; i < k; ++i) move_to_front(list(c[static_cast<std::size_t>(i)]), {OpKind::F, t + i, m});
  if (out.self_waiting >= 0) move_to_front(list(out.self_waiting), {OpKind::W, self.first, self.second});
  // c0 waits on c(k-1), c(k-1) on c(k-2), .., c1 on c0.
  out.cycle = {c[0]};
  for (int i = k - 1; i >= 1; --i) out.cycle.push_back(c[static_cast<std::size_t>(i)]);
  std::rotate(out.cycle.begin(), std::min_element(out.cycle.begin(), out.cycle.end()), out.cycle.end());
  out.cycle.push_back(out.cycle.front());
  return out;
}

}  // namespace pipeplan::test
