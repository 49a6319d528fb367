#include "replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "calibrate/measured_pieces.hpp"
#include "calibrate/replay_program.hpp"
#include "gpu_error.hpp"
#include "gpu_info.hpp"
#include "io/atomic_file.hpp"
#include "io/chrome_trace.hpp"
#include "io/profile_json.hpp"
#include "io/result_json.hpp"
#include "io/schedule_json.hpp"
#include "model/error.hpp"
#include "model/structure.hpp"
#include "piece_runner.hpp"
#include "sim/simulator.hpp"

namespace pipeplan::gpu {

namespace {

// What an op runs: its stage's pieces in the phases of its kind.
void run_op(PieceRunner& runner, const Layout& layout, const Op& op) {
  const auto pieces = [&](int stage) -> const StagePieces& { return layout[static_cast<std::size_t>(stage)]; };
  switch (op.kind) {
    case OpKind::F: runner.stage(pieces(op.stage), Phase::F); break;
    case OpKind::B: runner.stage(pieces(op.stage), Phase::B); break;
    case OpKind::W: runner.stage(pieces(op.stage), Phase::W); break;
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

// One rank: its device, its kernels, its communicator and the events around its ops.
struct Rank {
  int device = 0;
  std::unique_ptr<PieceRunner> runner;
  ncclComm_t comm = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
  cudaEvent_t base = nullptr;
  std::vector<cudaEvent_t> events;  // two per compute op, in program order
  std::size_t next_event = 0;
};

// NCCL on each rank's own stream: a group's sends and receives go in one ncclGroupStart/End,
// after the rank's earlier work on that stream.
class NcclTransport : public Transport {
 public:
  NcclTransport(std::vector<Rank>& ranks, std::size_t bytes) : ranks_(ranks), bytes_(bytes) {}
  void exchange(int rank, std::span<const ReplayTransfer> group) override {
    Rank& r = ranks_[static_cast<std::size_t>(rank)];
    PIPEPLAN_CUDA(cudaSetDevice(r.device));
    const cudaStream_t stream = r.runner->timer().stream();
    PIPEPLAN_NCCL(ncclGroupStart());
    for (const ReplayTransfer& t : group) {
      if (t.comm.is_send()) {
        PIPEPLAN_NCCL(ncclSend(r.send, bytes_, ncclChar, t.peer, r.comm, stream));
      } else {
        PIPEPLAN_NCCL(ncclRecv(r.recv, bytes_, ncclChar, t.peer, r.comm, stream));
      }
    }
    PIPEPLAN_NCCL(ncclGroupEnd());
  }

 private:
  std::vector<Rank>& ranks_;
  std::size_t bytes_;
};

SimTime elapsed_ns(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  PIPEPLAN_CUDA(cudaEventElapsedTime(&ms, from, to));
  return ms_to_ns(static_cast<double>(ms));
}

}  // namespace

int replay(const ReplayRequest& q) {
  const Schedule schedule = read_schedule_file(q.schedule);
  const Json profile_doc = parse_json(read_text_file(q.profile), q.profile);
  CostModel costs = profile_from_json(profile_doc, q.profile);
  const CalibratedProfile cal = calibrated_profile_from_json(profile_doc, q.profile);
  std::vector<Problem> problems = find_structure_problems(schedule);
  if (!allows_timing(problems)) throw Error(q.schedule + ": the schedule cannot be run: " + problems.front().message);
  if (cal.layout.size() != static_cast<std::size_t>(schedule.stages)) {
    throw Error(fmt::format("{}: the calibrated layout has {} stages, the schedule {}; calibrate with --stages {}",
                            q.profile, cal.layout.size(), schedule.stages, schedule.stages));
  }
  default_devices(costs, schedule.devices);
  costs = costs_for_stages(costs, schedule.stages, schedule.devices);
  const int available = device_count();
  if (available < schedule.devices) {
    throw Error(fmt::format("{}: needs {} GPUs, this machine has {}", q.schedule, schedule.devices, available));
  }
  const SimResult predicted = simulate(schedule, costs);
  if (predicted.deadlocked()) throw Error(q.schedule + ": the schedule deadlocks");
  const ReplayProgram program = replay_program(schedule, costs);

  // Set up every rank on its device.
  const auto ranks_count = static_cast<std::size_t>(schedule.devices);
  std::vector<Rank> ranks(ranks_count);
  std::vector<ncclComm_t> comms(ranks_count, nullptr);
  if (schedule.devices > 1) PIPEPLAN_NCCL(ncclCommInitAll(comms.data(), schedule.devices, nullptr));
  const std::size_t bytes = static_cast<std::size_t>(std::max<Bytes>(costs.transfer.bytes, 1));
  for (std::size_t r = 0; r < ranks_count; ++r) {
    Rank& rank = ranks[r];
    rank.device = static_cast<int>(r);
    PIPEPLAN_CUDA(cudaSetDevice(rank.device));
    rank.runner = std::make_unique<PieceRunner>(cal.model, cal.training);
    rank.comm = comms[r];
    PIPEPLAN_CUDA(cudaMalloc(&rank.send, bytes));
    PIPEPLAN_CUDA(cudaMalloc(&rank.recv, bytes));
    PIPEPLAN_CUDA(cudaEventCreate(&rank.base));
    std::size_t computes = 0;
    for (const ReplayStep& step : program.ranks[r]) computes += step.compute ? 1 : 0;
    rank.events.resize(2 * computes);
    for (cudaEvent_t& e : rank.events) PIPEPLAN_CUDA(cudaEventCreate(&e));
  }
  NcclTransport transport(ranks, bytes);
  const auto compute = [&](int r, const Op& op) {
    Rank& rank = ranks[static_cast<std::size_t>(r)];
    PIPEPLAN_CUDA(cudaSetDevice(rank.device));
    const cudaStream_t stream = rank.runner->timer().stream();
    PIPEPLAN_CUDA(cudaEventRecord(rank.events[rank.next_event++], stream));
    run_op(*rank.runner, cal.layout, op);
    PIPEPLAN_CUDA(cudaEventRecord(rank.events[rank.next_event++], stream));
  };

  // Runs the step once: every device idle, a base event on each, then every rank's program.
  const auto step = [&] {
    for (Rank& rank : ranks) {
      PIPEPLAN_CUDA(cudaSetDevice(rank.device));
      PIPEPLAN_CUDA(cudaDeviceSynchronize());
    }
    for (Rank& rank : ranks) {
      PIPEPLAN_CUDA(cudaSetDevice(rank.device));
      PIPEPLAN_CUDA(cudaEventRecord(rank.base, rank.runner->timer().stream()));
      rank.next_event = 0;
    }
    run_replay(program, transport, nullptr, compute);
    for (Rank& rank : ranks) {
      PIPEPLAN_CUDA(cudaSetDevice(rank.device));
      PIPEPLAN_CUDA(cudaStreamSynchronize(rank.runner->timer().stream()));
    }
  };
  // The measured timeline of the last run, as a result the core's tools read.
  const auto measured = [&] {
    SimResult out;
    out.devices.resize(ranks_count);
    for (std::size_t r = 0; r < ranks_count; ++r) {
      DeviceTimeline& t = out.devices[r];
      t.iterations.resize(1);
      t.memory.push_back({0, 0});
      std::size_t e = 0;
      for (const ReplayStep& s : program.ranks[r]) {
        if (!s.compute) continue;
        const SimTime start = elapsed_ns(ranks[r].base, ranks[r].events[e]);
        const SimTime end = elapsed_ns(ranks[r].base, ranks[r].events[e + 1]);
        e += 2;
        IterationTimes& it = t.iterations.front();
        if (t.ops.empty()) it.first_start = start;
        it.busy += end - start;
        it.last_end = it.optimizer_start = it.optimizer_end = end;
        t.ops.push_back({static_cast<int>(r), 0, s.op, start, end});
        out.makespan = std::max(out.makespan, end);
      }
    }
    return out;
  };

  for (int i = 0; i < q.warmup; ++i) step();
  std::vector<SimResult> runs;
  for (int i = 0; i < q.iterations; ++i) {
    step();
    runs.push_back(measured());
  }
  std::sort(runs.begin(), runs.end(), [](const SimResult& a, const SimResult& b) { return a.makespan < b.makespan; });
  const SimResult& median = runs[runs.size() / 2];

  // Predicted against measured: the step (the first iteration's makespan: replay runs no
  // optimizer), each device's bubble, and the first op whose start parts from the prediction.
  const double predicted_ms = ns_to_ms(predicted.makespan), measured_ms = ns_to_ms(median.makespan);
  std::string text = fmt::format("{} on {} GPUs, {} timed runs (median shown)\n", schedule.name, schedule.devices, runs.size());
  text += fmt::format("makespan: predicted {:.3f} ms, measured {:.3f} ms, error {:+.1f}%\n", predicted_ms, measured_ms,
                      100.0 * (predicted_ms - measured_ms) / measured_ms);
  text += "device   predicted bubble   measured bubble\n";
  for (std::size_t d = 0; d < ranks_count; ++d) {
    const auto bubble = [](const SimResult& s, std::size_t dev) {
      return s.makespan > 0 ? 1.0 - static_cast<double>(s.devices[dev].busy()) / static_cast<double>(s.makespan) : 0.0;
    };
    text += fmt::format("{:>6}   {:>15.1f}%   {:>14.1f}%\n", d, 100.0 * bubble(predicted, d), 100.0 * bubble(median, d));
  }
  const SimTime limit = static_cast<SimTime>(q.threshold * static_cast<double>(predicted.makespan));
  bool parted = false;
  for (std::size_t d = 0; d < ranks_count && !parted; ++d) {
    const auto& want = predicted.devices[d].ops;
    const auto& got = median.devices[d].ops;
    for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
      if (std::llabs(want[i].start - got[i].start) > limit) {
        text += fmt::format("first op to part by more than {:.0f}% of the makespan: device {} {} (#{}), predicted start "
                            "{:.3f} ms, measured {:.3f} ms\n",
                            100 * q.threshold, d, describe(got[i].op), i, ns_to_ms(want[i].start), ns_to_ms(got[i].start));
        parted = true;
        break;
      }
    }
  }
  if (!parted) text += fmt::format("no op starts more than {:.0f}% of the makespan away from its prediction\n", 100 * q.threshold);
  if (!q.output.empty()) {
    Json doc = result_to_json(schedule, median);
    doc["replay"] = {{"predicted_makespan_ms", predicted_ms}, {"measured_makespan_ms", measured_ms},
                     {"runs", runs.size()}, {"warmup", q.warmup}, {"profile", q.profile}};
    write_file_atomically(q.output, to_json_text(doc));
  }
  if (!q.trace.empty()) write_file_atomically(q.trace, to_json_text(chrome_trace(schedule, median)));
  std::cout << text;
  for (Rank& rank : ranks) {
    cudaSetDevice(rank.device);
    for (cudaEvent_t e : rank.events) cudaEventDestroy(e);
    cudaEventDestroy(rank.base);
    cudaFree(rank.send);
    cudaFree(rank.recv);
    if (rank.comm != nullptr) ncclCommDestroy(rank.comm);
  }
  return 0;
}

}  // namespace pipeplan::gpu
