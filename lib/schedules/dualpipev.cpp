// DualPipeV (DeepSeek, deepseek-ai/DualPipe; rules in docs/schedules.md, "DualPipeV"): two
// chunks per device on the V-shaped placement, device r holding stage r (chunk 0) and stage
// 2R-1-r (chunk 1), with the forward of one chunk overlapped with the full backward of the other
// as one compound op (FB). Eight phases per rank r of R:
//   1. (R-r-1)*2 forwards of chunk 0;
//   2. r+1 pairs [F0, F1];
//   3. R-r-1 triples [B1 (split), W, F1];
//   4. M-2R+r+1 pairs [F0 & B1, F1 & B0] (the last rank runs its first F0 and B1 apart);
//   5. R-r-1 pairs [B1, F1 & B0];
//   6. r+1 pairs [B1, B0], split from the middle on (B1 first on odd ranks, B0 on even);
//   7. R-r-1 pairs [W, B0 (split)];
//   8. the remaining W, oldest first.
// Every W runs the oldest weight gradient a split backward left. The order reproduces PyTorch's
// own DualPipeV file (tests/data/pytorch/dualpipev_4rank_10mb.csv) op for op.
#include <array>
#include <deque>
#include <utility>

#include "model/placement.hpp"
#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

namespace {

class DualDevice {
 public:
  DualDevice(Schedule& s, int rank) : order_(s, rank), stages_{rank, 2 * s.devices - 1 - rank} {}

  void forward(int chunk) { order_.add_at(OpKind::F, stage(chunk), forwards_[index(chunk)]++); }

  void backward(int chunk, bool split) {
    const int mb = backwards_[index(chunk)]++;
    order_.add_at(split ? OpKind::B : OpKind::BW, stage(chunk), mb);
    if (split) weights_.emplace_back(stage(chunk), mb);
  }

  void weight() {
    auto [stage, mb] = weights_.front();
    weights_.pop_front();
    order_.add_at(OpKind::W, stage, mb);
  }

  // The forward of one chunk overlapped with the full backward of the other.
  void overlap(int forward_chunk, int backward_chunk) {
    order_.add(overlapped(stage(forward_chunk), forwards_[index(forward_chunk)]++, stage(backward_chunk),
                          backwards_[index(backward_chunk)]++));
  }

  [[nodiscard]] bool weights_left() const { return !weights_.empty(); }

 private:
  static std::size_t index(int chunk) { return static_cast<std::size_t>(chunk); }
  int stage(int chunk) const { return stages_[index(chunk)]; }

  DeviceOrder order_;
  std::array<int, 2> stages_;
  std::array<int, 2> forwards_{};
  std::array<int, 2> backwards_{};
  std::deque<std::pair<int, int>> weights_;  // (stage, micro-batch) of the W still to run
};

}  // namespace

Schedule generate_dualpipev(const GenerateRequest& request) {
  const int ranks = request.devices;
  check_request("dualpipev", request);
  Schedule s = empty_schedule("dualpipev", request, vee_placement(ranks));
  const int m = request.microbatches;
  for (int r = 0; r < ranks; ++r) {
    DualDevice d(s, r);
    const int rest = ranks - r - 1;
    for (int i = 0; i < rest * 2; ++i) d.forward(0);  // 1
    for (int i = 0; i < r + 1; ++i) {                 // 2
      d.forward(0);
      d.forward(1);
    }
    for (int i = 0; i < rest; ++i) {  // 3
      d.backward(1, true);
      d.weight();
      d.forward(1);
    }
    for (int i = 0; i < m - 2 * ranks + r + 1; ++i) {  // 4
      if (i == 0 && r == ranks - 1) {
        d.forward(0);
        d.backward(1, false);
      } else {
        d.overlap(0, 1);
      }
      d.overlap(1, 0);
    }
    for (int i = 0; i < rest; ++i) {  // 5
      d.backward(1, false);
      d.overlap(1, 0);
    }
    bool split = false;  // 6
    for (int i = 0; i < r + 1; ++i) {
      if (i == (r + 1) / 2 && r % 2 == 1) split = true;
      d.backward(1, split);
      if (i == (r + 1) / 2 && r % 2 == 0) split = true;
      d.backward(0, split);
    }
    for (int i = 0; i < rest; ++i) {  // 7
      d.weight();
      d.backward(0, true);
    }
    while (d.weights_left()) d.weight();  // 8
  }
  return s;
}

}  // namespace pipeplan
