#include "nccl_links.hpp"

#include <algorithm>

#include "calibrate/sample_stats.hpp"
#include "cuda_owners.hpp"
#include "gpu_error.hpp"
#include "model/error.hpp"
#include "nccl_comms.hpp"

namespace pipeplan::gpu {

namespace {

constexpr std::size_t kLargest = std::size_t{1} << 30;  // 1 GiB

struct Rank {
  Stream stream;
  Event start, stop;
  DeviceBuffer send, recv;
};

// Transfers per sample: ten below 64 MiB, where a launch (several µs) would weigh, one above.
int batch_for(std::size_t bytes) {
  return bytes < (std::size_t{64} << 20) ? 10 : 1;
}

// `batch` transfers of `bytes` from a to b (and b to a when `both`), back to back between one
// pair of events per rank; the slower end's mean time per transfer.
double exchange_ms(std::vector<Rank>& ranks, NcclComms& comms, int a, int b, std::size_t bytes, bool both, int batch) {
  for (int r : {a, b}) {
    Rank& rank = ranks[static_cast<std::size_t>(r)];
    DeviceScope scope(r);
    PIPEPLAN_CUDA(cudaEventRecord(rank.start.get(), rank.stream.get()));
  }
  for (int i = 0; i < batch; ++i) {
    PIPEPLAN_NCCL(ncclGroupStart());
    for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
      if (from == b && !both) break;
      Rank& sender = ranks[static_cast<std::size_t>(from)];
      Rank& receiver = ranks[static_cast<std::size_t>(to)];
      PIPEPLAN_NCCL(ncclSend(sender.send.get(), bytes, ncclChar, to, comms.comm(from), sender.stream.get()));
      PIPEPLAN_NCCL(ncclRecv(receiver.recv.get(), bytes, ncclChar, from, comms.comm(to), receiver.stream.get()));
    }
    const ncclResult_t status = ncclGroupEnd();
    if (status != ncclSuccess && status != ncclInProgress)
      fail_call("ncclGroupEnd", __FILE__, __LINE__, ncclGetErrorString(status));
    comms.settle(a, "ncclSend/ncclRecv");
    comms.settle(b, "ncclSend/ncclRecv");
  }
  double slowest = 0;
  for (int r : {a, b}) {
    Rank& rank = ranks[static_cast<std::size_t>(r)];
    DeviceScope scope(r);
    PIPEPLAN_CUDA(cudaEventRecord(rank.stop.get(), rank.stream.get()));
    PIPEPLAN_CUDA(cudaEventSynchronize(rank.stop.get()));
    float ms = 0;
    PIPEPLAN_CUDA(cudaEventElapsedTime(&ms, rank.start.get(), rank.stop.get()));
    slowest = std::max(slowest, static_cast<double>(ms) / batch);
  }
  return slowest;
}

}  // namespace

std::vector<LinkMeasurement> measure_links(int devices, const TimingPlan& plan) {
  if (devices < 2) throw GpuError("NCCL send/recv needs two devices; this machine has " + std::to_string(devices));
  std::vector<Rank> ranks;
  for (int d = 0; d < devices; ++d) {
    ranks.push_back({Stream(d), Event(d), Event(d), DeviceBuffer(d, kLargest), DeviceBuffer(d, kLargest)});
  }
  NcclComms comms(devices);  // after the buffers: it is destroyed (or aborted) before they are freed
  std::vector<LinkMeasurement> out;
  for (int d = 0; d + 1 < devices; ++d) {
    for (bool both : {false, true}) {
      LinkMeasurement link{d, d + 1, both, {}, {}};
      for (std::size_t bytes = 8; bytes <= kLargest; bytes *= 2) {
        const int batch = batch_for(bytes);
        std::vector<double> samples;
        for (int i = 0; i < plan.warmup; ++i) (void)exchange_ms(ranks, comms, d, d + 1, bytes, both, batch);
        for (int i = 0; i < plan.repetitions; ++i)
          samples.push_back(exchange_ms(ranks, comms, d, d + 1, bytes, both, batch));
        link.table.push_back({static_cast<double>(bytes), stats_of(samples).median});
      }
      try {
        link.fit = fit_link(link.table);
      } catch (const Error&) {
        // The table is what the profile uses; a line that does not fit leaves the summary empty.
      }
      out.push_back(std::move(link));
    }
  }
  return out;
}

}  // namespace pipeplan::gpu
