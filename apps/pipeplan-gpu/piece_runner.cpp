#include "piece_runner.hpp"

#include <algorithm>

#include "gpu_error.hpp"
#include "kernels.hpp"

namespace pipeplan::gpu {

PieceRunner::PieceRunner(const ModelConfig& m, const TrainingSettings& tr)
    : training_(tr), layer_(pipeplan::layer_gemms(m, tr)), head_(head_gemms(m, tr)) {
  const auto t = static_cast<std::size_t>(tr.tp);
  tokens_ = static_cast<std::size_t>(tr.seq) * static_cast<std::size_t>(tr.micro_batch);
  hidden_ = static_cast<std::size_t>(m.hidden);
  ffn_ = static_cast<std::size_t>(m.ffn) / t;
  vocab_ = static_cast<std::size_t>(m.vocab) / t;
  score_rows_ = static_cast<std::size_t>(tr.micro_batch) * static_cast<std::size_t>(m.heads) / t *
                static_cast<std::size_t>(tr.seq);
  std::size_t largest =
      std::max({tokens_ * hidden_, tokens_ * ffn_, tokens_ * vocab_, score_rows_ * static_cast<std::size_t>(tr.seq)});
  for (const std::vector<Gemm>* list : {&layer_, &head_}) {
    for (const Gemm& g : *list) {
      largest = std::max(largest, static_cast<std::size_t>(g.batch * std::max({g.m * g.k, g.k * g.n, g.m * g.n})));
    }
  }
  timer_ = std::make_unique<GemmTimer>(tr.dtype, largest);
  // The lookup reads rows of a table that fits the scratch buffer, spread like real token ids.
  table_rows_ = std::max<std::size_t>(1, std::min(vocab_, largest / hidden_));
  std::vector<int> ids(tokens_);
  for (std::size_t i = 0; i < tokens_; ++i) ids[i] = static_cast<int>((i * 7919) % table_rows_);
  int device = 0;
  PIPEPLAN_CUDA(cudaGetDevice(&device));
  ids_ = DeviceBuffer(device, tokens_ * sizeof(int));
  PIPEPLAN_CUDA(cudaMemcpy(ids_.get(), ids.data(), tokens_ * sizeof(int), cudaMemcpyHostToDevice));
}

void PieceRunner::layer_gemms(Phase phase) {
  for (const Gemm& g : layer_) {
    if (g.phase == phase) timer_->run_gemm(g);
  }
}

void PieceRunner::layer_elementwise(Phase phase) {
  const int times = phase == Phase::F ? 1 : phase == Phase::B ? 2 : 0;
  GemmTimer& t = *timer_;
  const cudaStream_t s = t.stream();
  const cudaDataType type = t.element_type();
  for (int i = 0; i < times; ++i) {
    rms_norm(t.buffer(0), t.buffer(2), tokens_, hidden_, type, s);
    rms_norm(t.buffer(0), t.buffer(2), tokens_, hidden_, type, s);
    add(t.buffer(0), t.buffer(1), t.buffer(2), tokens_ * hidden_, type, s);
    add(t.buffer(0), t.buffer(1), t.buffer(2), tokens_ * hidden_, type, s);
    silu_mul(t.buffer(0), t.buffer(1), t.buffer(2), tokens_ * ffn_, type, s);
    if (!training_.flash_attention)
      softmax_rows(t.buffer(2), score_rows_, static_cast<std::size_t>(training_.seq), type, s);
  }
}

void PieceRunner::head(Phase phase) {
  for (const Gemm& g : head_) {
    if (g.phase == phase) timer_->run_gemm(g);
  }
  if (phase != Phase::W) loss();
}

void PieceRunner::loss() {
  softmax_rows(timer_->buffer(2), tokens_, vocab_, timer_->element_type(), timer_->stream());
}

void PieceRunner::embedding(Phase phase) {
  if (phase == Phase::B) return;  // token ids take no gradient
  gather_rows(timer_->buffer(0), static_cast<const int*>(ids_.get()), timer_->buffer(2), tokens_, hidden_,
              timer_->element_type(), timer_->stream());
}

void PieceRunner::stage(const StagePieces& pieces, Phase phase) {
  if (pieces.embedding) embedding(phase);
  for (int l = 0; l < pieces.layers; ++l) {
    layer_gemms(phase);
    layer_elementwise(phase);
  }
  if (pieces.head) head(phase);
}

}  // namespace pipeplan::gpu
