#include "calibrate_pieces.hpp"

#include "calibrate/sample_stats.hpp"

namespace pipeplan::gpu {

namespace {

std::string phase_name(Phase p) {
  return p == Phase::F ? "F" : p == Phase::B ? "B" : "W";
}

}  // namespace

PieceMeasurements measure_pieces(PieceRunner& runner, const TimingPlan& plan, double peak) {
  PieceMeasurements out;
  GemmTimer& timer = runner.timer();
  const auto record = [&](const std::string& piece, const std::string& name, Phase phase,
                          const std::vector<double>& samples, const Gemm* gemm, PieceTimes& into) {
    const SampleStats s = stats_of(samples);
    into.add(phase, s.median);
    Json j = {{"piece", piece},
              {"name", name},
              {"phase", phase_name(phase)},
              {"median_ms", s.median},
              {"p10_ms", s.p10},
              {"p90_ms", s.p90},
              {"cv", s.cv},
              {"count", s.count}};
    if (gemm != nullptr) {
      const CublasCall c = cublas_call(*gemm);
      j["shape"] = {{"m", gemm->m}, {"n", gemm->n}, {"k", gemm->k}, {"batch", gemm->batch}};
      j["cublas"] = std::string(c.transa ? "T" : "N") + (c.transb ? "T" : "N");
      j["tflops"] = gemm->flops() / (s.median * 1e-3) / 1e12;
      if (peak > 0) j["peak_tflops"] = peak / 1e12;
    }
    if (timer.gate_timed_out()) j["gate_timed_out"] = true;  // launches may have slowed it
    out.measurements.push_back(std::move(j));
  };
  // One layer: its GEMMs, then its element-wise kernels.
  for (const Gemm& g : runner.layer_products())
    record("layer", g.name, g.phase, timer.time_gemm(g, plan), &g, out.layer);
  for (Phase p : {Phase::F, Phase::B}) {
    record("layer", "elementwise", p, timer.time([&] { runner.layer_elementwise(p); }, plan), nullptr, out.layer);
  }
  // The head: its products and the loss's softmax over the logits, forward and backward.
  for (const Gemm& g : runner.head_products()) record("head", g.name, g.phase, timer.time_gemm(g, plan), &g, out.head);
  for (Phase p : {Phase::F, Phase::B})
    record("head", "loss", p, timer.time([&] { runner.loss(); }, plan), nullptr, out.head);
  // The embedding: a lookup of T rows forward, the gradient's scatter (timed as a lookup) in W.
  for (Phase p : {Phase::F, Phase::W}) {
    record("embedding", p == Phase::F ? "lookup" : "gradient", p, timer.time([&] { runner.embedding(p); }, plan),
           nullptr, out.embedding);
  }
  return out;
}

}  // namespace pipeplan::gpu
