// Interleaved 1F1B (virtual pipeline parallelism; Narayanan et al., SC 2021, section 2.2). Each
// device holds V chunks on the loop placement. Micro-batches go in groups of N: within a group,
// every chunk runs the group's micro-batches before the next chunk starts, forward in chunk order
// 0..V-1 and backward in V-1..0. Rank r runs (P-r-1)*2 + (V-1)*N warm-up forwards (at most M*V),
// then one forward and one backward at a time, then the remaining backwards.
//
// Two rules pick N. By default PyTorch's ScheduleInterleaved1F1B (torch/distributed/pipelining/
// schedules.py, `_get_1f1b_rank_ops` and `_get_warmup_ops` with multiply_factor 2; read at
// pytorch/pytorch 00722e648b740f91d0e71494baa17891749fd291, the commit that wrote the CSVs in
// tests/data/pytorch/generated/): "flexible rounds", N = M / max(1, floor(M/P)),
// refused unless that divides M; so M = 6 or 10 on P = 4 runs in one or two rounds, and M < P in
// one round of M. PyTorch counts each stage's micro-batches as it goes, which gives the same
// (micro-batch, chunk) table as the groups here, since every group is a full round. With --group N,
// Megatron-LM's rule (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving): P <= N <= M, the last group holds what is left
// and must not be smaller than P, or the pipeline would stall on it.
#include <algorithm>
#include <string>
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

// Megatron's group size N as given by --group, checked against its rule.
int megatron_group(const GenerateRequest& request) {
  const int p = request.devices;
  const int m = request.microbatches;
  const int n = request.group;
  if (n < p || n > m || (m % n != 0 && m % n < p)) {
    throw Error("interleaved: micro-batch group size N = " + std::to_string(n) +
                " does not fit M = " + std::to_string(m) +
                ": Megatron's rule needs P <= N <= M and M mod N either 0 or at least P (" + std::to_string(p) +
                "); choose M as a multiple of N, another group size, or leave --group out "
                "for PyTorch's rounds");
  }
  return n;
}

}  // namespace

Schedule generate_interleaved(const GenerateRequest& request) {
  const int p = request.devices;
  const int v = request.chunks;
  const int m = request.microbatches;
  check_request("interleaved", request);
  const int n = request.group == 0 ? microbatches_per_round("interleaved", request) : megatron_group(request);
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
