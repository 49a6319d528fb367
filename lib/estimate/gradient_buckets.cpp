#include "estimate/gradient_buckets.hpp"

#include <algorithm>
#include <cstddef>

namespace pipeplan {

namespace {

/// One bucket: its collectives, when the backward has made its last gradient (`ready_ms`, on the
/// clock of the last micro-batch's backward through the device), when the forward reaches its
/// first piece (`need_ms`, on the clock of the next step's first forward, waits left out), and
/// the stage it belongs to (its index among the device's).
struct Bucket {
  DataParallelMs ms;
  double ready_ms = 0, need_ms = 0;
  std::size_t stage = 0;
};

/// Each stage's pieces' start in the forward and end in the backward, on the device's clocks,
/// the pieces of all stages in one array (stage s's from `first[s]`).
struct PieceClocks {
  std::vector<std::size_t> first;
  std::vector<double> forward_start, backward_end;
  std::vector<double> stage_forward_start;
  double backward_total = 0;

  [[nodiscard]] std::size_t at(std::size_t stage, std::size_t piece) const { return first[stage] + piece; }
};

PieceClocks piece_clocks(const std::vector<BucketStage>& stages) {
  PieceClocks c;
  c.first.reserve(stages.size());
  c.stage_forward_start.reserve(stages.size());
  double forward = 0;
  for (const BucketStage& stage : stages) {
    c.first.push_back(c.forward_start.size());
    c.stage_forward_start.push_back(forward);
    for (const BucketPiece& p : stage.pieces) {
      c.forward_start.push_back(forward);
      forward += p.forward_ms;
    }
  }
  c.backward_end.resize(c.forward_start.size());
  double backward = 0;
  for (std::size_t s = stages.size(); s-- > 0;) {
    for (std::size_t i = stages[s].pieces.size(); i-- > 0;) {
      backward += stages[s].pieces[i].backward_ms;
      c.backward_end[c.at(s, i)] = backward;
    }
  }
  c.backward_total = backward;
  return c;
}

/// One kind of weights' buckets, stage by stage from the last, each stage's pieces from the last
/// (param_and_grad_buffer.py: parameters in reverse, a bucket closed at the parameter that
/// brings it to the size). A piece without weights of the kind joins none.
void add_buckets(std::vector<Bucket>& out, const std::vector<BucketStage>& stages, const PieceClocks& clocks,
                 double bucket_params, double BucketPiece::*kind, const BucketReplicas& who, DType dtype, bool split) {
  if (who.replicas == nullptr || who.link == nullptr) return;
  for (std::size_t s = stages.size(); s-- > 0;) {
    const bool bucketed = split && stages[s].bucketed;
    double params = 0;
    std::size_t last = 0;
    const auto close = [&] {
      out.push_back({who.replicas->collectives(params, dtype, *who.link), clocks.backward_end[clocks.at(s, last)],
                     clocks.forward_start[clocks.at(s, last)], s});
      params = 0;
    };
    for (std::size_t i = stages[s].pieces.size(); i-- > 0;) {
      const double p = stages[s].pieces[i].*kind;
      if (p <= 0) continue;
      params += p;
      last = i;
      if (bucketed && params >= bucket_params) close();
    }
    if (params > 0) close();
  }
}

/// The queue of reductions: each starts when its bucket is ready and the one before has ended
/// (`buckets` sorted so, in place).
double reduce_exposed_ms(std::vector<Bucket>& buckets, double backward_total) {
  std::stable_sort(buckets.begin(), buckets.end(),
                   [](const Bucket& a, const Bucket& b) { return a.ready_ms < b.ready_ms; });
  double free = 0;
  for (const Bucket& b : buckets) free = std::max(b.ready_ms, free) + b.ms.reduce_ms;
  return std::max(0.0, free - backward_total);
}

/// The forward's waits for the gathers, dispatched one bucket ahead on a device of one stage,
/// a stage's all together when the forward reaches the stage before it on a device of several.
/// The first ones `lead_ms` before the forward starts (`buckets` sorted by need, in place).
double gather_exposed_ms(std::vector<Bucket>& buckets, const PieceClocks& clocks, double lead_ms) {
  std::stable_sort(buckets.begin(), buckets.end(),
                   [](const Bucket& a, const Bucket& b) { return a.need_ms < b.need_ms; });
  const std::size_t stages = clocks.stage_forward_start.size();
  const bool one_ahead = stages == 1;
  // When the forward reached each stage's first piece, waits included (known once passed).
  std::vector<double> stage_reached(stages, -1.0);
  double waited = 0, free = -lead_ms, previous_ready = 0;
  std::size_t passed = 0;
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    const Bucket& b = buckets[k];
    while (passed < stages && clocks.stage_forward_start[passed] <= b.need_ms) {
      stage_reached[passed] = clocks.stage_forward_start[passed] + waited;
      ++passed;
    }
    const double arrive = b.need_ms + waited;
    double dispatch = -lead_ms;
    if (one_ahead) {
      if (k > 0) dispatch = previous_ready;
    } else if (b.stage > 0) {
      dispatch = stage_reached[b.stage - 1];
    }
    free = std::max(dispatch, free) + b.ms.gather_ms;
    const double wait = std::max(0.0, free - arrive);
    waited += wait;
    previous_ready = arrive + wait;
  }
  return waited;
}

}  // namespace

double default_bucket_params(int data_parallel) {
  return std::max(40e6, 1e6 * data_parallel);
}

double bucket_params(const TrainingSettings& tr, int data_parallel) {
  return tr.bucket_params > 0 ? double(tr.bucket_params) : default_bucket_params(data_parallel);
}

BucketedCollectives bucketed_collectives(const std::vector<BucketStage>& stages, double bucket_params,
                                         const BucketReplicas& dense, const BucketReplicas& experts, DType dtype,
                                         const TrainingSettings& tr, double gather_lead_ms) {
  const PieceClocks clocks = piece_clocks(stages);
  // Without --overlap-grad-reduce Megatron-Core keeps no buckets (bucket_size None): each stage
  // is one.
  const bool split = tr.overlap_grad_reduce;
  std::vector<Bucket> buckets;
  add_buckets(buckets, stages, clocks, bucket_params, &BucketPiece::dense_params, dense, dtype, split);
  add_buckets(buckets, stages, clocks, bucket_params, &BucketPiece::expert_params, experts, dtype, split);
  BucketedCollectives out;
  for (const Bucket& b : buckets) {
    out.total.reduce_ms += b.ms.reduce_ms;
    out.total.gather_ms += b.ms.gather_ms;
  }
  out.reduce_exposed_ms =
      tr.overlap_grad_reduce ? reduce_exposed_ms(buckets, clocks.backward_total) : out.total.reduce_ms;
  out.gather_exposed_ms =
      tr.overlap_param_gather ? gather_exposed_ms(buckets, clocks, gather_lead_ms) : out.total.gather_ms;
  return out;
}

}  // namespace pipeplan
