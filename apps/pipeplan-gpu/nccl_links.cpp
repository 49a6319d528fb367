#include "nccl_links.hpp"

#include <algorithm>

#include "calibrate/sample_stats.hpp"
#include "gpu_error.hpp"

namespace pipeplan::gpu {

namespace {

constexpr std::size_t kLargest = std::size_t{1} << 30;  // 1 GiB

struct Rank {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
};

// One transfer of `bytes` from a to b, and from b to a too when `both`; the slower end's time.
double exchange_ms(std::vector<Rank>& ranks, int a, int b, std::size_t bytes, bool both) {
  for (int r : {a, b}) {
    PIPEPLAN_CUDA(cudaSetDevice(r));
    PIPEPLAN_CUDA(cudaEventRecord(ranks[static_cast<std::size_t>(r)].start, ranks[static_cast<std::size_t>(r)].stream));
  }
  PIPEPLAN_NCCL(ncclGroupStart());
  for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    if (from == b && !both) break;
    Rank& sender = ranks[static_cast<std::size_t>(from)];
    Rank& receiver = ranks[static_cast<std::size_t>(to)];
    PIPEPLAN_NCCL(ncclSend(sender.send, bytes, ncclChar, to, sender.comm, sender.stream));
    PIPEPLAN_NCCL(ncclRecv(receiver.recv, bytes, ncclChar, from, receiver.comm, receiver.stream));
  }
  PIPEPLAN_NCCL(ncclGroupEnd());
  double slowest = 0;
  for (int r : {a, b}) {
    Rank& rank = ranks[static_cast<std::size_t>(r)];
    PIPEPLAN_CUDA(cudaSetDevice(r));
    PIPEPLAN_CUDA(cudaEventRecord(rank.stop, rank.stream));
    PIPEPLAN_CUDA(cudaEventSynchronize(rank.stop));
    float ms = 0;
    PIPEPLAN_CUDA(cudaEventElapsedTime(&ms, rank.start, rank.stop));
    slowest = std::max(slowest, static_cast<double>(ms));
  }
  return slowest;
}

}  // namespace

std::vector<LinkMeasurement> measure_links(int devices, const TimingPlan& plan) {
  if (devices < 2) throw GpuError("NCCL send/recv needs two devices; this machine has " + std::to_string(devices));
  std::vector<Rank> ranks(static_cast<std::size_t>(devices));
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(devices));
  PIPEPLAN_NCCL(ncclCommInitAll(comms.data(), devices, nullptr));
  for (int d = 0; d < devices; ++d) {
    Rank& r = ranks[static_cast<std::size_t>(d)];
    r.comm = comms[static_cast<std::size_t>(d)];
    PIPEPLAN_CUDA(cudaSetDevice(d));
    PIPEPLAN_CUDA(cudaStreamCreate(&r.stream));
    PIPEPLAN_CUDA(cudaEventCreate(&r.start));
    PIPEPLAN_CUDA(cudaEventCreate(&r.stop));
    PIPEPLAN_CUDA(cudaMalloc(&r.send, kLargest));
    PIPEPLAN_CUDA(cudaMalloc(&r.recv, kLargest));
  }
  std::vector<LinkMeasurement> out;
  for (int d = 0; d + 1 < devices; ++d) {
    for (bool both : {false, true}) {
      LinkMeasurement link{d, d + 1, both, {}, {}};
      for (std::size_t bytes = 8; bytes <= kLargest; bytes *= 2) {
        std::vector<double> samples;
        for (int i = 0; i < plan.warmup; ++i) (void)exchange_ms(ranks, d, d + 1, bytes, both);
        for (int i = 0; i < plan.repetitions; ++i) samples.push_back(exchange_ms(ranks, d, d + 1, bytes, both));
        link.table.push_back({static_cast<double>(bytes), stats_of(samples).median});
      }
      link.fit = fit_link(link.table);
      out.push_back(std::move(link));
    }
  }
  for (int d = 0; d < devices; ++d) {
    Rank& r = ranks[static_cast<std::size_t>(d)];
    PIPEPLAN_CUDA(cudaSetDevice(d));
    PIPEPLAN_CUDA(cudaFree(r.send));
    PIPEPLAN_CUDA(cudaFree(r.recv));
    PIPEPLAN_NCCL(ncclCommDestroy(r.comm));
  }
  return out;
}

}  // namespace pipeplan::gpu
