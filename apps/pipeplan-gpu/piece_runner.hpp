#pragma once
// Enqueues the work of a model's pieces on one device: the GEMMs of a layer, the head or the
// embedding for a phase, and their element-wise kernels, on scratch buffers large enough for
// the biggest of them. calibrate times these; replay runs them for every op of a schedule.
#include <memory>
#include <vector>

#include "calibrate/layer_gemms.hpp"
#include "estimate/layout.hpp"
#include "estimate/model_config.hpp"
#include "estimate/training.hpp"
#include "gemm_timer.hpp"

namespace pipeplan::gpu {

class PieceRunner {
 public:
  /// Allocates on the current device.
  PieceRunner(const ModelConfig& model, const TrainingSettings& training);
  PieceRunner(const PieceRunner&) = delete;
  PieceRunner& operator=(const PieceRunner&) = delete;

  void layer_gemms(Phase phase);
  /// The element-wise kernels of one layer: once forward, twice backward (the saved input and
  /// the incoming gradient), none for W.
  void layer_elementwise(Phase phase);
  void head(Phase phase);       ///< the head's product and, in F and B, the loss
  void loss();                  ///< the softmax over one micro-batch's logits
  void embedding(Phase phase);  ///< the lookup in F, the gradient's scatter (as a lookup) in W

  /// Everything a stage holding `pieces` does in `phase`.
  void stage(const StagePieces& pieces, Phase phase);

  [[nodiscard]] GemmTimer& timer() { return *timer_; }
  [[nodiscard]] const std::vector<Gemm>& layer_products() const { return layer_; }
  [[nodiscard]] const std::vector<Gemm>& head_products() const { return head_; }

 private:
  TrainingSettings training_;
  std::vector<Gemm> layer_, head_;
  std::size_t tokens_ = 0, hidden_ = 0, ffn_ = 0, vocab_ = 0, score_rows_ = 0, table_rows_ = 0;
  std::unique_ptr<GemmTimer> timer_;
  DeviceBuffer ids_;  ///< token ids of the embedding's lookup
};

}  // namespace pipeplan::gpu
