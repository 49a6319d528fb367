// Megatron-LM's interleaved 1F1B (virtual pipeline parallelism; Narayanan et al., SC 2021,
// section 2.2; megatron/core/pipeline_parallel/schedules.py). Each device holds V chunks on the
// loop placement. Micro-batches go in groups of N: within a group, every chunk runs the group's
// micro-batches before the next chunk starts, forward in chunk order 0..V-1 and backward in
// V-1..0. Rank r runs (P-r-1)*2 + (V-1)*N warm-up forwards (at most M*V), then one forward and
// one backward at a time, then the remaining backwards.
#include <algorithm>
#include <utility>

#include "model/error.hpp"
#include "model/placement.hpp"
#include "schedules/builder.hpp"
#include "schedules/handcrafted.hpp"

namespace pipeplan {

namespace {

// The (micro-batch, chunk) of each forward in the order every rank runs them; the backward
// order is the same with the chunk reversed. The last group holds whatever is left.
std::vector<std::pair<int, int>> group_table(int microbatches, int chunks, int group) {
  std::vector<std::pair<int, int>> table;
  for (int first = 0; first < microbatches; first += group) {
    int last = first + group >= microbatches ? microbatches : first + group;
    for (int c = 0; c < chunks; ++c) {
      for (int m = first; m < last; ++m) table.emplace_back(m, c);
    }
    if (last == microbatches) break;
  }
  return table;
}

}  // namespace

Schedule generate_interleaved(const GenerateRequest& request) {
  const int p = request.devices;
  const int v = request.chunks;
  const int m = request.microbatches;
  const int n = request.group == 0 ? p : request.group;
  check_request("interleaved", request, {p, "P", 1, 64});
  if (n < p || n > m || (m % n != 0 && m % n < p)) {
    throw Error("interleaved: micro-batch group size N = " + std::to_string(n) + " does not fit M = " +
                std::to_string(m) + ": Megatron's rule needs P <= N <= M and M mod N either 0 or at least P (" +
                std::to_string(p) + "); choose M as a multiple of N, or another group size");
  }
  Schedule s = empty_schedule("interleaved", request, loop_placement(p, v));
  const auto table = group_table(m, v, n);
  const int total = m * v;
  for (int r = 0; r < p; ++r) {
    DeviceOrder order(s, r);
    auto forward = [&](int k) {
      const auto& [mb, chunk] = table[static_cast<std::size_t>(k)];
      order.add_at(OpKind::F, chunk * p + r, mb);
    };
    auto backward = [&](int k) {
      const auto& [mb, chunk] = table[static_cast<std::size_t>(k)];
      order.add_at(OpKind::BW, (v - 1 - chunk) * p + r, mb);
    };
    const int warmup = std::min((p - r - 1) * 2 + (v - 1) * n, total);
    for (int k = 0; k < warmup; ++k) forward(k);
    for (int k = 0; k < total - warmup; ++k) {
      forward(warmup + k);
      backward(k);
    }
    for (int k = total - warmup; k < total; ++k) backward(k);
  }
  return s;
}

}  // namespace pipeplan
