#pragma once
// The compute half of `pipeplan-gpu calibrate` (docs/gpu.md): one layer's GEMMs and element-wise
// kernels, the head and the embedding, each timed on one device, with every measurement kept.
#include "calibrate.hpp"
#include "io/json_text.hpp"
#include "piece_runner.hpp"

namespace pipeplan::gpu {

/// F, B and W of one piece: the sums of its parts' medians.
struct PieceTimes {
  double f = 0, b = 0, w = 0;
  [[nodiscard]] double total() const { return f + b + w; }
  void add(Phase p, double ms) { (p == Phase::F ? f : p == Phase::B ? b : w) += ms; }
};

struct PieceMeasurements {
  Json measurements = Json::array();  ///< every timed part: phase, shape, statistics, TFLOP/s
  PieceTimes layer, head, embedding;
};

/// Times every piece with `runner` on its device; `peak_flops` (0 when unknown) goes beside
/// each product's achieved rate.
[[nodiscard]] PieceMeasurements measure_pieces(PieceRunner& runner, const TimingPlan& plan, double peak_flops);

}  // namespace pipeplan::gpu
