#include "calibrate/replay_program.hpp"

#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "lower/lowering.hpp"
#include "model/error.hpp"
#include "model/threads.hpp"

namespace pipeplan {

namespace {

// The tensor a send or receive carries: the send's key, the same at both ends.
long long tensor_of(const CommOp& c) {
  return static_cast<long long>(comm_key(c.is_send() ? c : c.matching()));
}

// Aborts the transport for a rank's failure. Nothing it throws may hide that failure.
void abort_for(Transport& transport, int rank, const std::exception_ptr& failure) {
  std::string what = "an unknown error";
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  try {
    transport.abort("rank " + std::to_string(rank) + " failed: " + what);
  } catch (...) {
  }
}

}  // namespace

ReplayProgram replay_program(const Schedule& schedule, const CostModel& costs) {
  return replay_program(lower(schedule, LowerPolicy::Timed, &costs, CommMode::Blocking));  // NCCL on the compute stream
}

ReplayProgram replay_program(const LoweredSchedule& lowered) {
  const Schedule& schedule = lowered.schedule;
  ReplayProgram program;
  program.ranks.resize(lowered.actions.size());
  for (std::size_t d = 0; d < lowered.actions.size(); ++d) {
    for (const LoweredAction& a : lowered.actions[d]) {
      if (!a.is_comm) {
        program.ranks[d].push_back({true, a.op, {}});
        continue;
      }
      if (!a.batched || program.ranks[d].empty() || program.ranks[d].back().compute) {
        program.ranks[d].push_back({false, {}, {}});
      }
      const int peer = schedule.placement[static_cast<std::size_t>(a.comm.peer_stage())];
      program.ranks[d].back().group.push_back({peer, a.comm, tensor_of(a.comm)});
    }
  }
  return program;
}

// Per ordered pair (from, to): the tensors posted by the sender and expected by the receiver,
// in posting order; the k-th of each meet.
struct FakeTransport::State {
  int ranks = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::pair<int, int>, std::vector<long long>> sent, expected;
  int waiting = 0, done = 0;
  std::map<int, std::function<bool()>> waiters;  // each waiting rank's test: is its group done?
  long long completed = 0;
  std::string failure;
  bool detect_deadlock = true;
  std::chrono::milliseconds hang_limit{0};
  bool hung = false;

  // Every rank that has not finished waits, and none of them can go on: nothing will change.
  bool stuck() const {
    if (waiting + done != ranks) return false;
    for (const auto& [rank, met] : waiters) {
      if (met()) return false;
    }
    return true;
  }
};

FakeTransport::FakeTransport(int ranks, bool detect_deadlock, std::chrono::milliseconds hang_limit)
    : state_(new State) {
  state_->ranks = ranks;
  state_->detect_deadlock = detect_deadlock;
  state_->hang_limit = hang_limit;
}
FakeTransport::~FakeTransport() {
  delete state_;
}

void FakeTransport::exchange(int rank, std::span<const ReplayTransfer> group) {
  State& st = *state_;
  std::unique_lock lock(st.mutex);
  // Post the whole group, remembering where each transfer sits on its pair's list.
  std::vector<std::pair<std::vector<long long>*, std::size_t>> mine;
  std::vector<std::vector<long long>*> theirs;
  for (const ReplayTransfer& t : group) {
    const bool send = t.comm.is_send();
    const std::pair<int, int> pair = send ? std::pair{rank, t.peer} : std::pair{t.peer, rank};
    std::vector<long long>& own = send ? st.sent[pair] : st.expected[pair];
    own.push_back(t.tensor);
    mine.emplace_back(&own, own.size() - 1);
    theirs.push_back(send ? &st.expected[pair] : &st.sent[pair]);
  }
  st.changed.notify_all();
  const auto all_met = [&] {
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (theirs[i]->size() <= mine[i].second) return false;
    }
    return true;
  };
  ++st.waiting;
  st.waiters[rank] = all_met;
  const auto give_up = std::chrono::steady_clock::now() + st.hang_limit;
  while (!all_met() && st.failure.empty()) {
    if (st.detect_deadlock && st.stuck()) {
      st.failure = "deadlock: every rank that has not finished waits for a peer (rank " + std::to_string(rank) +
                   " last posted " + describe(group.front().comm) + ")";
      st.changed.notify_all();
      break;
    }
    if (st.detect_deadlock) {
      st.changed.wait(lock);
    } else if (st.changed.wait_until(lock, give_up) == std::cv_status::timeout) {
      st.hung = true;
      st.failure = "rank " + std::to_string(rank) + " waited past the hang limit";
      st.changed.notify_all();
    }
  }
  --st.waiting;
  st.waiters.erase(rank);
  if (!st.failure.empty()) throw Error(st.failure);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const long long other = (*theirs[i])[mine[i].second];
    if (other != (*mine[i].first)[mine[i].second]) {
      st.failure =
          "rank " + std::to_string(rank) + ": " + describe(group[i].comm) + " met a transfer of another tensor";
      st.changed.notify_all();
      throw Error(st.failure);
    }
    if (group[i].comm.is_send()) ++st.completed;
  }
}

void FakeTransport::finished(int rank) {
  (void)rank;
  std::lock_guard lock(state_->mutex);
  ++state_->done;
  state_->changed.notify_all();
}

void FakeTransport::abort(const std::string& reason) {
  std::lock_guard lock(state_->mutex);
  if (state_->failure.empty()) state_->failure = "aborted: " + reason;
  state_->changed.notify_all();
}

bool FakeTransport::hung() const {
  std::lock_guard lock(state_->mutex);
  return state_->hung;
}

long long FakeTransport::completed() const {
  std::lock_guard lock(state_->mutex);
  return state_->completed;
}

void run_replay(const ReplayProgram& program, Transport& transport, FakeTransport* fake,
                const std::function<void(int, const Op&)>& compute) {
  std::mutex mutex;
  std::exception_ptr first;  // the failure that stopped the replay; the others follow from it
  {
    ThreadGroup threads;
    for (std::size_t r = 0; r < program.ranks.size(); ++r) {
      threads.start([&, r] {
        const int rank = static_cast<int>(r);
        try {
          for (const ReplayStep& step : program.ranks[r]) {
            if (step.compute) {
              compute(rank, step.op);
            } else {
              transport.exchange(rank, step.group);
            }
          }
        } catch (...) {
          bool is_first = false;
          {
            std::lock_guard lock(mutex);
            is_first = !first;
            if (is_first) first = std::current_exception();
          }
          if (is_first) abort_for(transport, rank, first);
        }
        if (fake != nullptr) fake->finished(rank);
      });
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace pipeplan
