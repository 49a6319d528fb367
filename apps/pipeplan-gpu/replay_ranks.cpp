#include "replay_ranks.hpp"

#include <chrono>
#include <thread>

#include "gpu_error.hpp"

namespace pipeplan::gpu {

namespace {

// What an op runs: its stage's pieces in the phases of its kind.
void run_op(PieceRunner& runner, const Layout& layout, const Op& op) {
  const auto pieces = [&](int stage) -> const StagePieces& { return layout[static_cast<std::size_t>(stage)]; };
  switch (op.kind) {
    case OpKind::F:
      runner.stage(pieces(op.stage), Phase::F);
      break;
    case OpKind::B:
      runner.stage(pieces(op.stage), Phase::B);
      break;
    case OpKind::W:
      runner.stage(pieces(op.stage), Phase::W);
      break;
    case OpKind::BW:
      runner.stage(pieces(op.stage), Phase::B);
      runner.stage(pieces(op.stage), Phase::W);
      break;
    case OpKind::FB:
      runner.stage(pieces(op.stage), Phase::F);
      runner.stage(pieces(op.overlap_stage), Phase::B);
      runner.stage(pieces(op.overlap_stage), Phase::W);
      break;
  }
}

// NCCL on each rank's compute stream: a group's sends and receives in one ncclGroupStart/End,
// after the rank's earlier work on that stream.
class NcclTransport : public Transport {
 public:
  NcclTransport(std::vector<ReplayRank>& ranks, NcclComms& comms, std::size_t bytes)
      : ranks_(ranks), comms_(comms), bytes_(bytes) {}
  void exchange(int rank, std::span<const ReplayTransfer> group) override {
    ReplayRank& r = ranks_[static_cast<std::size_t>(rank)];
    DeviceScope scope(r.device);
    const cudaStream_t stream = r.runner->timer().stream();
    PIPEPLAN_NCCL(ncclGroupStart());
    for (const ReplayTransfer& t : group) {
      if (t.comm.is_send()) {
        PIPEPLAN_NCCL(ncclSend(r.send.get(), bytes_, ncclChar, t.peer, comms_.comm(rank), stream));
      } else {
        PIPEPLAN_NCCL(ncclRecv(r.recv.get(), bytes_, ncclChar, t.peer, comms_.comm(rank), stream));
      }
    }
    const ncclResult_t status = ncclGroupEnd();
    if (status != ncclSuccess && status != ncclInProgress)
      fail_call("ncclGroupEnd", __FILE__, __LINE__, ncclGetErrorString(status));
    comms_.settle(rank, "ncclSend/ncclRecv");
  }
  void abort(const std::string& reason) override { comms_.abort(reason); }

 private:
  std::vector<ReplayRank>& ranks_;
  NcclComms& comms_;
  std::size_t bytes_;
};

// Without NCCL (one device) nothing is exchanged, and nothing waits to be stopped.
class NoTransport : public Transport {
 public:
  void exchange(int, std::span<const ReplayTransfer>) override {}
  void abort(const std::string&) override {}
};

}  // namespace

ReplayRanks::ReplayRanks(const ReplayProgram& program, const CalibratedProfile& calibrated, std::size_t bytes)
    : program_(program), calibrated_(calibrated), bytes_(bytes) {
  ranks_.resize(program.ranks.size());
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    ReplayRank& rank = ranks_[r];
    rank.device = static_cast<int>(r);
    DeviceScope scope(rank.device);
    rank.runner = std::make_unique<PieceRunner>(calibrated.model, calibrated.training);
    rank.send = DeviceBuffer(rank.device, bytes);
    rank.recv = DeviceBuffer(rank.device, bytes);
    rank.base = Event(rank.device);
    for (const ReplayStep& step : program.ranks[r]) {
      if (!step.compute) continue;
      rank.events.emplace_back(rank.device);
      rank.events.emplace_back(rank.device);
    }
  }
  if (ranks_.size() > 1) comms_ = std::make_unique<NcclComms>(static_cast<int>(ranks_.size()));
}

void ReplayRanks::step(double watchdog_s) {
  for (ReplayRank& rank : ranks_) {
    DeviceScope scope(rank.device);
    PIPEPLAN_CUDA(cudaDeviceSynchronize());
  }
  for (ReplayRank& rank : ranks_) {
    DeviceScope scope(rank.device);
    PIPEPLAN_CUDA(cudaEventRecord(rank.base.get(), rank.runner->timer().stream()));
    rank.next_event = 0;
  }
  const auto compute = [&](int r, const Op& op) {
    ReplayRank& rank = ranks_[static_cast<std::size_t>(r)];
    DeviceScope scope(rank.device);
    const cudaStream_t stream = rank.runner->timer().stream();
    PIPEPLAN_CUDA(cudaEventRecord(rank.events[rank.next_event++].get(), stream));
    run_op(*rank.runner, calibrated_.layout, op);
    PIPEPLAN_CUDA(cudaEventRecord(rank.events[rank.next_event++].get(), stream));
  };
  NoTransport none;
  std::unique_ptr<NcclTransport> nccl;
  if (comms_) nccl = std::make_unique<NcclTransport>(ranks_, *comms_, bytes_);
  run_replay(program_, nccl ? static_cast<Transport&>(*nccl) : none, nullptr, compute);
  wait_for_devices(watchdog_s);
}

void ReplayRanks::wait_for_devices(double watchdog_s) {
  // Polled, not synchronised: a transfer whose peer never posts would block a synchronise
  // forever, and only an abort of the communicators ends NCCL's waiting kernels.
  const auto limit = std::chrono::steady_clock::now() + std::chrono::duration<double>(watchdog_s);
  for (ReplayRank& rank : ranks_) {
    DeviceScope scope(rank.device);
    for (;;) {
      const cudaError_t status = cudaStreamQuery(rank.runner->timer().stream());
      if (status == cudaSuccess) break;
      if (status != cudaErrorNotReady) PIPEPLAN_CUDA(status);
      if (comms_) comms_->check("the replay's transfers");
      if (std::chrono::steady_clock::now() > limit) {
        const std::string why = "device " + std::to_string(rank.device) + " did not finish the step within " +
                                std::to_string(static_cast<int>(watchdog_s)) + " s";
        if (comms_) comms_->abort(why);
        throw GpuError("the replay hung: " + why);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
}

std::vector<std::vector<MeasuredOp>> ReplayRanks::times() const {
  std::vector<std::vector<MeasuredOp>> out(ranks_.size());
  const auto ns = [](const Event& from, const Event& to) {
    float ms = 0;
    PIPEPLAN_CUDA(cudaEventElapsedTime(&ms, from.get(), to.get()));
    return ms_to_ns(static_cast<double>(ms));
  };
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    const ReplayRank& rank = ranks_[r];
    for (std::size_t e = 0; e + 1 < rank.events.size(); e += 2) {
      out[r].push_back({ns(rank.base, rank.events[e]), ns(rank.base, rank.events[e + 1])});
    }
  }
  return out;
}

}  // namespace pipeplan::gpu
