#pragma once
// What each device of a lowered schedule posts, arranged for the communication simulator: its
// compute ops and groups of sends and receives in order, and each transfer's link (one
// direction of a device pair) and position on it. Internal to lib/sim.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/large_allocator.hpp"
#include "model/lowered.hpp"

namespace pipeplan::sim {

/// One send or receive of a device's list.
struct CommSlot {
  CommOp comm;
  int peer = 0;
  std::size_t link = 0;   ///< the ordered device pair it travels on (sender, receiver)
  std::size_t index = 0;  ///< its transfer's position on that link within one iteration
};

/// A compute op, or a group of sends and receives posted together (slots first .. last - 1).
struct PostItem {
  bool group = false;
  Op op;
  std::size_t first = 0, last = 0;
};

struct DevicePosts {
  LargeVector<PostItem> items;
  LargeVector<CommSlot> slots;
};

struct CommPlan {
  std::vector<DevicePosts> devices;
  std::vector<std::pair<int, int>> link_ends;  ///< sender and receiver of each link
  std::vector<std::size_t> per_link;           ///< transfers of a link in one iteration
  /// Each receive's slot in its device's posts, by `index`; lowering_problems has checked that
  /// every input from another device has its receive, posted once.
  LargeVector<std::uint32_t> receive_slot;
};

/// The plan of `lowered`. Precondition: lowering_problems(lowered) is empty.
[[nodiscard]] CommPlan plan_posts(const LoweredSchedule& lowered, const CommIndex& index);

}  // namespace pipeplan::sim
