#pragma once
// Each device's next wake-up time, with the earliest (time, device) always at hand. The greedy
// pass used to keep every wake-up in a heap, most of them stale (a device busy past them) and
// sifting them cost half of the pass; a device needs only its earliest one, so this keeps one
// per device in a tournament tree: an update climbs log2(P) levels, the earliest is the root.
#include <cstddef>
#include <limits>
#include <vector>

#include "model/units.hpp"

namespace pipeplan {

class WakeQueue {
 public:
  static constexpr SimTime kNever = std::numeric_limits<SimTime>::max();

  /// `devices` devices, each waking at time 0.
  explicit WakeQueue(int devices) {
    while (leaves_ < static_cast<std::size_t>(devices)) leaves_ *= 2;
    node_.assign(2 * leaves_, Wake{kNever, 0});
    for (std::size_t i = 0; i < leaves_; ++i) {
      node_[leaves_ + i] = Wake{i < static_cast<std::size_t>(devices) ? 0 : kNever, static_cast<int>(i)};
    }
    for (std::size_t i = leaves_ - 1; i >= 1; --i) node_[i] = earlier(node_[2 * i], node_[2 * i + 1]);
  }

  /// The device to wake first (the lowest index among equal times) and its time; kNever when
  /// no device has a wake-up.
  [[nodiscard]] int device() const { return node_[1].device; }
  [[nodiscard]] SimTime time() const { return node_[1].time; }
  [[nodiscard]] SimTime time_of(int device) const { return node_[leaves_ + static_cast<std::size_t>(device)].time; }

  /// Sets device's next wake-up (kNever: none until set again).
  void set(int device, SimTime when) {
    std::size_t i = leaves_ + static_cast<std::size_t>(device);
    node_[i].time = when;
    // Climb while the earliest below a node changes; above an unchanged node nothing does.
    for (i /= 2; i >= 1; i /= 2) {
      const Wake earliest = earlier(node_[2 * i], node_[2 * i + 1]);
      if (earliest.time == node_[i].time && earliest.device == node_[i].device) break;
      node_[i] = earliest;
    }
  }

 private:
  struct Wake {
    SimTime time;
    int device;
  };

  // By time, then device. Written without short-circuits so that it compiles to conditional
  // moves: which of two devices wakes first is as good as random, a branch would mispredict.
  static Wake earlier(const Wake& a, const Wake& b) {
    const bool b_first = (b.time < a.time) | ((b.time == a.time) & (b.device < a.device));
    return b_first ? b : a;
  }

  std::size_t leaves_ = 1;
  // Leaves at [leaves_, 2 leaves_): one per device, then padding that never wakes. Node i holds
  // the earliest of nodes 2i and 2i+1; the root is node 1.
  std::vector<Wake> node_;
};

}  // namespace pipeplan
