// ZB-V (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, section 6; rules in
// docs/schedules.md, "ZB-V"). Two chunks per device on the V-shaped placement: device r holds
// stage r (chunk 0, written F B W below) and stage 2P-1-r (chunk 1, written f b w), so device 0
// holds both the first stage and the last, where the loss turns the pipeline around. With
// n = max(2P-1, M) micro-batches (padding with virtual ones that are dropped at the end):
//   1. 2(P-r)-1 F, then r pairs [f, F];
//   2. P-r triples [f, b, w];
//   3. while f lags F or F has not reached n: [F (if any left), B, W] then [f, b, w];
//   4. r pairs [B, b]; P-r pairs [B, W]; the remaining w; the remaining W.
// Peak memory is P full-stage activations on every device; no bubble when F = B = W.
#include <algorithm>
#include <array>

#include "model/placement.hpp"
#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

namespace {

class VeeDevice {
 public:
  VeeDevice(Schedule& s, int device, int padded)
      : order_(s, device), stages_{device, 2 * s.devices - 1 - device}, real_(s.microbatches), padded_(padded) {}

  // Emits the next op of `kind` on `chunk`; a padded micro-batch advances the count only.
  void next(OpKind kind, int chunk) {
    int& count = counts_[static_cast<std::size_t>(kind)][static_cast<std::size_t>(chunk)];
    if (count >= padded_) return;
    if (count < real_) order_.add_at(kind, stages_[static_cast<std::size_t>(chunk)], count);
    ++count;
  }
  [[nodiscard]] int count(OpKind kind, int chunk) const {
    return counts_[static_cast<std::size_t>(kind)][static_cast<std::size_t>(chunk)];
  }

 private:
  DeviceOrder order_;
  std::array<int, 2> stages_;
  std::array<std::array<int, 2>, kOpKindCount> counts_{};
  int real_;
  int padded_;
};

}  // namespace

Schedule generate_zbv(const GenerateRequest& request) {
  check_request("zbv", request);
  const int p = request.devices;
  const int n = std::max(2 * p - 1, request.microbatches);
  Schedule s = empty_schedule("zbv", request, vee_placement(p));
  constexpr int kFirst = 0, kSecond = 1;
  for (int r = 0; r < p; ++r) {
    VeeDevice d(s, r, n);
    auto triple = [&](int chunk) {
      d.next(OpKind::F, chunk);
      d.next(OpKind::B, chunk);
      d.next(OpKind::W, chunk);
    };
    for (int i = 0; i < 2 * (p - r) - 1; ++i) d.next(OpKind::F, kFirst);
    for (int i = 0; i < r; ++i) {
      d.next(OpKind::F, kSecond);
      d.next(OpKind::F, kFirst);
    }
    for (int i = 0; i < p - r; ++i) triple(kSecond);
    while (d.count(OpKind::F, kSecond) < d.count(OpKind::F, kFirst) || d.count(OpKind::F, kFirst) < n) {
      triple(kFirst);  // next() skips the F once all n have run
      triple(kSecond);
    }
    for (int i = 0; i < r; ++i) {
      d.next(OpKind::B, kFirst);
      d.next(OpKind::B, kSecond);
    }
    for (int i = 0; i < p - r; ++i) {
      d.next(OpKind::B, kFirst);
      d.next(OpKind::W, kFirst);
    }
    while (d.count(OpKind::W, kSecond) < n) d.next(OpKind::W, kSecond);
    while (d.count(OpKind::W, kFirst) < n) d.next(OpKind::W, kFirst);
  }
  return s;
}

}  // namespace pipeplan
